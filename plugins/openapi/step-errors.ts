/**
 * The error statuses each plugin's step may answer with, and why, for the `responses` of the
 * OpenAPI document: a route lists the union over its steps, so the list follows the pipeline as
 * composed, not a hand list per route. Keyed by plugin name; `name:action` (a step with an
 * `action` option) replaces the plugin's own entry. A step that calls other routes in-process
 * (verdicts, the Query service, the knowledge base) lists what those calls pass through.
 * The statuses are the plugins' own (their READMEs and docs/api-reference.md hold the
 * messages); test/plugins/openapi/step-errors.test.ts checks that every built-in plugin has an
 * entry. A plugin not listed here (a third party's) contributes nothing: its route still has
 * the kernel's statuses and the `default` error.
 */
export type StatusReasons = Readonly<Record<number, string>>

/** What a model-reaching step passes on from the model server, and the request's time limit. */
const UPSTREAM: StatusReasons = {
  400: "the model server's own refusal, with its status and message (e.g. its context length)",
  502: 'upstream request failed (unreachable, or a malformed reply)',
  504: 'upstream request timed out (limits.request_timeout_ms)',
}

/** What a step passes on from a gateway route it calls in-process (the route's budget, queue and model server). */
const CALLED_ROUTE: StatusReasons = {
  403: "the called route's refusals: api key term budget exhausted · model not permitted for tenant",
  429: 'token budget exceeded (a per-minute token budget)',
  502: 'upstream request failed',
  503: 'timed out waiting for model capacity · budget or queue state is unavailable',
  504: 'upstream request timed out',
}

const ADMIN_KEY: StatusReasons = {
  401: 'missing bearer token · invalid admin key',
  403: 'admin api is not configured',
}

const PROJECT_NOT_FOUND = { 404: 'project X does not exist' } as const
const COLLECTION_NOT_FOUND = { 404: 'collection "x" does not exist (also when it is another project\'s)' } as const

export const STEP_ERRORS: Readonly<Record<string, StatusReasons>> = {
  // The gateway's chat machinery.
  auth: { 401: 'missing bearer token · invalid api key', 403: 'api key disabled' },
  model: {
    400: 'model is required · model X is not a <type> model · model X does not support completions',
    403: 'model is disabled · model not permitted for tenant',
    404: 'model X is not registered',
    410: 'model X was retired; use Y (code model_retired)',
    503: 'no model is available to satisfy the auto request',
  },
  capabilities: {
    400: 'model X does not support tools / tool_choice · model does not accept images · an image_url that is not a data URL or public https URL · too many images · dimensions the model does not take',
  },
  reasoning: { 400: 'reasoning effort X is not one of none, low, medium or high' },
  'max-tokens': { 400: "max_tokens N is over this route's limit of M" },
  budget: {
    403: 'api key term budget exhausted · tenant term budget exhausted',
    429: 'token budget exceeded (a per-minute token budget of the key or its group)',
    503: 'budget state is unavailable (Retry-After: 5)',
  },
  'fair-queue': {
    503: 'timed out waiting for model capacity · queue state is unavailable (Retry-After: 5)',
  },
  'usage-records': {},
  // Its rounds and helpers run under the route's own key: their refusals are the route's own steps'.
  boons: { 502: 'upstream request failed (a tool round or a helper model failed)' },
  backend: UPSTREAM,
  'token-count': {
    400: 'texts must be an object of strings',
    502: 'the model server answered /tokenize without a count',
  },
  'anthropic-messages': {
    400: 'model is required · an unsupported content block · `max_tokens` must be greater than `thinking.budget_tokens` …',
  },
  'openai-responses': {
    400: "Missing required parameter: 'input' · unsupported item, part, tool or format · 'background' / 'conversation' / 'prompt' is not supported",
    404: "Previous response with id 'X' not found. · Item with id 'X' not found.",
  },
  'openai-responses:retrieve': { 404: "Response with id 'X' not found." },
  'openai-responses:delete': { 404: "Response with id 'X' not found." },
  'openai-responses:input-items': {
    400: "order must be 'asc' or 'desc' · limit must be an integer from 1 to 100",
    404: "Response with id 'X' not found.",
  },
  'model-catalog': {},
  'model-catalog:retrieve': { 404: 'model X is not registered' },
  rerank: {
    400: 'model X is not a rerank model',
    502: 'upstream sent a malformed rerank reply: … · upstream request failed',
    504: UPSTREAM[504]!,
  },
  'image-generation': {
    400: "model X is not an image generation model · the model server's own refusal (size, n …)",
    502: 'upstream sent a malformed images reply: no data list · upstream request failed',
    504: UPSTREAM[504]!,
  },
  'web-search': {
    400: "invalid request: query is blank · max_results N is over this gateway's limit of M",
    502: 'the web search provider answered N · could not be reached or sent malformed JSON · sent no results list',
    504: 'the web search provider did not answer within N ms',
  },
  speech: {
    400: 'model X is not a speech model · voice, speed, language, input length or streaming format the model does not take',
    502: 'upstream request failed · upstream sent unusable audio: …',
    504: UPSTREAM[504]!,
  },
  'speech-voices': {
    400: 'model is required · model X is not a speech model',
    403: 'model is disabled · model not permitted for tenant',
    404: 'model X is not registered',
  },
  'multipart-upload': {
    400: 'the request must be multipart/form-data with a file field · file is required · file is empty · invalid multipart body: …',
    413: 'request body too large · too many form fields, files or parts · a form field too long',
  },
  'json-upload': { 400: 'file_base64 is empty or not base64', 413: 'the file is over max_file_bytes' },
  transcription: {
    400: "response_format X is not one of … · model X does not translate · model X is not a transcription model · the model server's own refusal (an unreadable audio file)",
    502: 'upstream request failed',
    504: UPSTREAM[504]!,
  },
  verdicts: {
    ...CALLED_ROUTE,
    400: "invalid request: … · too many or too few questions · criteria, option and level rules · images · the model server's context overflow",
    401: 'an error of the chat route the questions call',
    404: 'model X is not registered · {"detail":"Not Found"} for a legacy key',
    410: 'model X was retired; use Y',
    413: 'rendered state is too large · image data is too large · image data times questions is too large',
    502: 'backend returned no logprobs · model produced no recognizable answer label · upstream returned S: message',
  },
  // The admin API and the portal.
  'admin-auth': ADMIN_KEY,
  'admin-groups': {},
  'admin-groups:get': { 404: 'group X does not exist' },
  'admin-groups:put': { 400: 'invalid request: … (the body breaks the group schema)' },
  'admin-groups:delete': { 404: 'group X does not exist', 409: 'group X still has keys: …' },
  'admin-keys': {},
  'admin-keys:get': { 404: 'key X does not exist' },
  'admin-keys:create': {
    400: 'invalid request: … · group X does not exist',
    409: 'key X already exists',
    503: 'the key store is not available',
  },
  'admin-keys:update': { 400: 'invalid request: … · group X does not exist', 404: 'key X does not exist' },
  'admin-keys:rotate': { 404: 'key X does not exist' },
  'admin-keys:delete': { 404: 'key X does not exist' },
  'admin-usage': { 400: 'invalid request: from, to, by or limit out of its rule' },
  'admin-models': {},
  'admin-projects': {},
  'admin-projects:get': PROJECT_NOT_FOUND,
  'admin-projects:put': {
    400: 'invalid request: … (the body breaks the project schema; the key does not exist; a bad project id)',
    409: 'project X is defined in config/projects.yaml and is read-only through the admin API',
  },
  'admin-projects:delete': {
    ...PROJECT_NOT_FOUND,
    409: 'project X is defined in config/projects.yaml and is read-only through the admin API',
  },
  'admin-projects:tokens': PROJECT_NOT_FOUND,
  'admin-projects:create-token': { ...PROJECT_NOT_FOUND, 400: 'invalid request: /kind: …' },
  'admin-projects:delete-token': {
    404: 'token T of project X does not exist',
    409: 'token T is defined in config/projects.yaml and is read-only through the admin API',
  },
  'portal-auth': {
    401: 'not signed in to the portal',
    403: 'missing or invalid CSRF token: send the x-csrf-token header returned at sign-in',
  },
  'portal-auth:sign-in': {
    400: 'invalid request: admin_key is required',
    401: 'invalid admin key',
    403: 'admin api is not configured',
  },
  'portal-auth:status': { 401: 'not signed in to the portal' },
  'portal-auth:sign-out': {
    401: 'not signed in to the portal',
    403: 'missing or invalid CSRF token',
  },
  'portal-assets': {
    404: 'no portal file X',
    503: 'the portal is not built: run `npm run build`',
  },
  // The knowledge base API.
  'knowledge-collections': {},
  'knowledge-collections:create': {
    ...CALLED_ROUTE,
    400: 'invalid request: … · project or collection name is invalid · embedding_model is not an embedding model',
    409: 'collection "x" already exists',
    503: 'the knowledge base cannot embed: knowledge.embedding_key is not a key of this gateway',
  },
  'knowledge-collections:list': { 400: 'project name … is invalid' },
  'knowledge-collections:delete': { 400: 'project or collection name is invalid', ...COLLECTION_NOT_FOUND },
  'knowledge-documents': {},
  'knowledge-documents:list': { 400: 'project or collection name is invalid', ...COLLECTION_NOT_FOUND },
  'knowledge-documents:delete': {
    400: 'project, collection or source name is invalid',
    404: 'collection "x" does not exist · document "x" does not exist in collection "y"',
  },
  'knowledge-documents:put': {
    ...CALLED_ROUTE,
    400: 'invalid request: … · content_base64 is not valid base64 · the PDF could not be read · document has no text to index',
    ...COLLECTION_NOT_FOUND,
    415: 'content type X is not a document format the knowledge base reads · cannot tell the format from its extension',
    503: 'the knowledge base cannot embed: knowledge.embedding_key is not a key of this gateway',
  },
  'knowledge-documents:upload': {
    ...CALLED_ROUTE,
    400: 'invalid form fields (tags, metadata, an unknown field) · the PDF could not be read · document has no text to index',
    ...COLLECTION_NOT_FOUND,
    415: 'content type X is not a document format the knowledge base reads · cannot tell the format from its extension',
    503: 'the knowledge base cannot embed: knowledge.embedding_key is not a key of this gateway',
  },
  'knowledge-search': {
    ...CALLED_ROUTE,
    400: "invalid request: … · filter expression, at character N: … · top_k N is over this route's limit · unknown output_fields · the rerank trio",
    ...COLLECTION_NOT_FOUND,
    502: 'reranker x failed: … · query variants: chat model x gave no answer · an embedding call failed',
    503: 'the knowledge base cannot embed: knowledge.embedding_key is not a key of this gateway',
  },
  // The Query service.
  'query-auth': {
    400: 'project_id is required with a developer token · project_id must be a non-empty string',
    401: 'missing bearer token · invalid access token',
    403: 'this token is not valid for project X · the gateway key of project X is disabled',
    503: 'project X has no usable gateway key',
  },
  query: {
    ...CALLED_ROUTE,
    400: 'a rule of the query request (endpoint, request_source, search_params, rerank trio, filter, provider and model …)',
    404: 'collection X not found · model X is not registered · chat upload Q of session S has no file …',
    502: "the model server gave no answer · the model did not answer with JSON · the answer does not satisfy the response_format's schema",
  },
  'query-search': {
    ...CALLED_ROUTE,
    400: 'invalid request: … · search_params.collection is required · top_k over the limit · the rerank trio · unknown output_fields · a bad expr',
    404: 'collection X not found',
  },
  'query-rerank': {
    ...CALLED_ROUTE,
    400: 'reranker_model X is not a rerank model · reranker_provider does not match · request_source',
    404: 'reranker_model X is not registered',
    502: 'the rerank route sent an unreadable reply',
  },
  'query-vision': {
    ...CALLED_ROUTE,
    400: 'model_provider X does not serve vision requests · the image is not a data URL or public https URL · request_source',
    404: 'model X is not registered',
    413: 'image data is too large',
    502: 'the model sent an unreadable reply',
    503: 'no vision model is available: name one with model_name',
  },
  'query-upload': {
    ...CALLED_ROUTE,
    400: 'the form: fields, file names, session_id, too many files · the PDF could not be read',
    403: "this token is not valid for project X · the transcription route's refusals",
    413: 'a file or the upload over its limit',
    415: 'a file that is not an image, audio or a document format the service reads',
    502: 'the transcription of X came back without text · upstream request failed',
    503: 'no transcription model is configured for audio uploads',
  },
  'query-image': {
    ...CALLED_ROUTE,
    400: "model_name X is not an image generation model · request_source · the model server's own refusal",
    404: 'model_name X is not in the catalog',
    502: 'the images route sent no images',
    503: 'no image generation model is configured',
  },
  'query-audio': {
    ...CALLED_ROUTE,
    400: "audio_file must be base64 · model_name X is not a transcription model · does not translate · the model server's own refusal",
    404: 'model_name X is not in the catalog',
    413: 'audio_file is larger than N bytes',
    502: 'the transcription route sent no transcript',
    503: 'no transcription model is configured',
  },
  'query-speech': {
    ...CALLED_ROUTE,
    400: 'model_name X is not a speech model · voice X is not available · request_source',
    404: 'model_name X is not in the catalog',
    502: 'the speech route sent no audio',
    503: 'no speech model is configured',
  },
  'response-cache': { 400: 'x-gateway-cache must be on or off' },
  // Routes over WebSocket only (not in the document), listed so that the table covers every plugin.
  'query-compare': { ...CALLED_ROUTE, 400: 'a rule of the compare request' },
  'query-realtime': { ...CALLED_ROUTE, 400: 'a rule of the realtime request', 413: 'audio over its limit' },
  // Operations.
  metrics: {
    401: 'missing bearer token · invalid metrics token (when server.yaml `metrics:` protects it)',
    403: 'metrics need the admin key, which is not configured',
  },
  probe: {},
  openapi: {},
  'openapi:pipeline': { 404: 'no HTTP pipeline "x"; see /openapi.json' },
  // The SOAP service catalog: every error is a SOAP 1.1 fault, HTTP 500 (the pipeline's style).
  'soap-codec': {
    400: 'a malformed envelope or an unknown operation (a fault)',
    413: 'the envelope over max_bytes (a fault)',
  },
  'service-catalog': {
    400: 'Unknown operation · Folder does not exist · InvalidArgument (faults)',
    401: 'This catalog requires a token · Invalid token (faults)',
    502: 'The service catalog is unavailable (a fault)',
  },
}

/** The entry of a step named `name` or `name:action`: the action's when it has one, else the plugin's. */
export function stepErrors(step: string): StatusReasons {
  return STEP_ERRORS[step] ?? STEP_ERRORS[step.split(':')[0]!] ?? {}
}
