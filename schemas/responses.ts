/**
 * What a route answers when it succeeds, by the name a route's `response:` gives (beside its
 * `body:`), as bodies.ts names request schemas: per HTTP status, a description and the body's
 * JSON Schema per content type. A streamed answer is `text/event-stream`, described one event at
 * a time (`{event?, data}`: `data` is the event's JSON, or the terminator `[DONE]`); bytes
 * (audio, assets) are strings of their content type. The pipeline schema allows exactly these
 * names, so a misspelt `response:` stops the load like an unknown `body:` does; the openapi
 * plugin puts them in the document, and test/e2e/openapi-responses.test.ts checks real answers
 * against them.
 */
import { chatCompletionChunkSchema, chatCompletionSchema, streamErrorEventSchema } from './chat-response.schema.js'
import { completionSchema } from './completion-response.schema.js'
import { embeddingsResponseSchema } from './embeddings-response.schema.js'
import { modelEntrySchema, modelListSchema } from './model-list-response.schema.js'
import {
  responseDeletedSchema,
  responseEventSchema,
  responseInputItemsSchema,
  responseObjectSchema,
} from './responses-response.schema.js'
import { messageEventSchema, messageSchema, messageTokenCountSchema } from './messages-response.schema.js'
import { rerankResponseSchema } from './rerank-response.schema.js'
import { verdictsResponseSchema } from './verdicts-response.schema.js'
import { imagesResponseSchema } from './images-response.schema.js'
import { webSearchResponseSchema } from './web-search-response.schema.js'
import { SPEECH_CONTENT_TYPES, speechEventSchema, transcriptSchema, voiceListSchema } from './audio-response.schema.js'
import {
  adminModelsSchema,
  deletedSchema,
  groupViewSchema,
  keySecretSchema,
  keyViewSchema,
  listOf,
  projectTokenDeletedSchema,
  projectTokenSecretSchema,
  projectTokenViewSchema,
  projectViewSchema,
  usageRecordsSchema,
  usageSummarySchema,
} from './admin-response.schema.js'
import { portalSessionSchema, portalSignedOutSchema } from './portal-response.schema.js'
import {
  collectionDeletedSchema,
  collectionViewSchema,
  documentDeletedSchema,
  documentViewSchema,
  knowledgeSearchSchema,
  searchResultSchema,
} from './knowledge-response.schema.js'
import { chatUploadSchema, queryEnvelope } from './query-response.schema.js'
import { openApiDocumentSchema, probeSchema } from './ops-response.schema.js'

/** One status of an answer: what it means, and its body's schema per content type (none: no body). */
export interface WireResponse {
  readonly description: string
  readonly content?: Readonly<Record<string, object>>
}

/** A route's answers by HTTP status (`200`, `201` …). */
export type ResponseSpec = Readonly<Record<string, WireResponse>>

/** The content type of server-sent events: each described as `{event?, data}`. */
export const EVENT_STREAM = 'text/event-stream'

/** A server-sent event whose `data` is `data` (or `terminator`); `named`: an `event:` line names its `type`. */
function sse(data: object, options: { terminator?: string; named?: boolean } = {}): object {
  return {
    description: `One server-sent event${options.named ? ' (its `event:` line names its `type`)' : ''}${options.terminator ? `; the stream ends with \`data: ${options.terminator}\`` : ''}.`,
    type: 'object',
    required: ['data'],
    properties: {
      ...(options.named ? { event: { type: 'string' } } : {}),
      data: options.terminator ? { anyOf: [data, { const: options.terminator }] } : data,
    },
  }
}

const text = (description: string) => ({ type: 'string', description })

function json(schema: object & { description?: string }, status = '200'): ResponseSpec {
  return { [status]: { description: schema.description ?? 'Success.', content: { 'application/json': schema } } }
}

/** A JSON answer that may be streamed instead (`stream: true`). */
function streamable(schema: object & { description?: string }, event: object): ResponseSpec {
  return {
    '200': {
      description: `${schema.description ?? 'Success.'} With \`stream: true\`, server-sent events.`,
      content: { 'application/json': schema, [EVENT_STREAM]: event },
    },
  }
}

const openAIStreamEvent = (chunk: object) => sse({ anyOf: [chunk, streamErrorEventSchema] }, { terminator: '[DONE]' })

export const responseSchemas = {
  // gateway.yaml
  'model-list': json(modelListSchema),
  model: json(modelEntrySchema),
  'chat-completion': streamable(chatCompletionSchema, openAIStreamEvent(chatCompletionChunkSchema)),
  completion: streamable(completionSchema, openAIStreamEvent(completionSchema)),
  response: streamable(responseObjectSchema, sse(responseEventSchema, { named: true })),
  'stored-response': json(responseObjectSchema),
  'response-deleted': json(responseDeletedSchema),
  'response-input-items': json(responseInputItemsSchema),
  embeddings: json(embeddingsResponseSchema),
  rerank: json(rerankResponseSchema),
  verdicts: json(verdictsResponseSchema),
  images: json(imagesResponseSchema),
  'web-search': json(webSearchResponseSchema),
  speech: {
    '200': {
      description:
        'The audio, of the asked `response_format` (pcm and wav streamed as made by a streaming model); with `stream_format: sse`, server-sent events.',
      content: {
        ...Object.fromEntries(
          SPEECH_CONTENT_TYPES.map((type) => [
            type,
            { type: 'string', contentMediaType: type, description: 'Audio bytes.' },
          ]),
        ),
        [EVENT_STREAM]: sse(speechEventSchema),
      },
    },
  },
  voices: json(voiceListSchema),
  transcript: {
    '200': {
      description: 'The transcript: JSON for `json` and `verbose_json`, text for `text` and `srt`, WebVTT for `vtt`.',
      content: {
        'application/json': transcriptSchema,
        'text/plain': text('`text`: the transcript; `srt`: numbered cues.'),
        'text/vtt': text('`vtt`: WebVTT cues.'),
      },
    },
  },
  // messages.yaml
  message: streamable(messageSchema, sse(messageEventSchema, { named: true })),
  'message-token-count': json(messageTokenCountSchema),
  // catalog.yaml
  'soap-envelope': {
    '200': { description: 'A SOAP 1.1 response envelope.', content: { 'text/xml': text('SOAP 1.1 envelope.') } },
  },
  wsdl: {
    '200': {
      description: 'The WSDL 1.1 description of the service (`?wsdl`).',
      content: { 'text/xml': text('WSDL 1.1.') },
    },
  },
  // admin.yaml (and the portal's API)
  group: json(groupViewSchema),
  'group-list': json(listOf(groupViewSchema, 'The groups.')),
  deleted: json(deletedSchema),
  key: json(keyViewSchema),
  'key-list': json(listOf(keyViewSchema, 'The keys.')),
  'key-created': json(keySecretSchema, '201'),
  'key-rotated': json(keySecretSchema),
  'usage-summary': json(usageSummarySchema),
  'usage-records': json(usageRecordsSchema),
  'admin-models': json(adminModelsSchema),
  project: json(projectViewSchema),
  'project-put': {
    '200': { description: 'Replaced whole.', content: { 'application/json': projectViewSchema } },
    '201': { description: 'Created.', content: { 'application/json': projectViewSchema } },
  },
  'project-list': json(listOf(projectViewSchema, 'The projects, by id.')),
  'project-token-list': json(listOf(projectTokenViewSchema, "The project's tokens, config tokens first.")),
  'project-token-created': json(projectTokenSecretSchema, '201'),
  'project-token-deleted': json(projectTokenDeletedSchema),
  // ops.yaml
  metrics: {
    '200': {
      description: 'Prometheus text format 0.0.4.',
      content: { 'text/plain': text('Metric families, one sample a line.') },
    },
  },
  liveness: json(probeSchema),
  readiness: {
    '200': { description: 'Ready: every check passed.', content: { 'application/json': probeSchema } },
    '503': {
      description: 'Not ready: the failing checks with their errors.',
      content: { 'application/json': probeSchema },
    },
  },
  'openapi-document': json(openApiDocumentSchema),
  'html-page': { '200': { description: 'An HTML page.', content: { 'text/html': text('HTML.') } } },
  redirect: {
    '302': { description: 'Elsewhere: the `Location` header names where.', content: { 'text/plain': text('Where.') } },
  },
  // portal.yaml
  'portal-asset': {
    '200': {
      description: 'A built file of the portal (names with a content hash are cached for a year).',
      content: {
        'text/javascript': text('A script.'),
        'text/css': text('A stylesheet.'),
        'application/json': {},
        'image/svg+xml': text('An SVG image.'),
        'image/png': text('A PNG image.'),
        'image/x-icon': text('An icon.'),
      },
    },
  },
  'portal-session': json(portalSessionSchema),
  'portal-signed-out': json(portalSignedOutSchema),
  // knowledge.yaml
  'collection-created': json(collectionViewSchema, '201'),
  'collection-list': json(listOf(collectionViewSchema, 'The collections, by name.')),
  'collection-deleted': json(collectionDeletedSchema),
  document: json(documentViewSchema),
  'document-list': json(listOf(documentViewSchema, 'The documents, by source name.')),
  'document-deleted': json(documentDeletedSchema),
  'knowledge-search': json(knowledgeSearchSchema),
  // query.yaml
  'query-answer': json(
    queryEnvelope(
      'query',
      {
        description:
          'The answer: its text (`response_format.type: text`), the parsed JSON value (`json`, or a JSON schema in `model_params.response_format`), or the chat completion (`openai`).',
      },
      'The answer in the query response envelope.',
    ),
  ),
  'query-search': json(
    queryEnvelope('search', { type: 'array', items: searchResultSchema }, 'The results in rank order; no answer.'),
  ),
  'query-rerank': json(
    queryEnvelope(
      'rerank',
      {
        type: 'array',
        items: {
          type: 'object',
          required: ['index', 'relevance_score', 'document'],
          properties: {
            index: { type: 'integer', minimum: 0 },
            relevance_score: { type: 'number' },
            document: { type: 'string' },
          },
        },
      },
      'The documents by relevance, best first.',
    ),
  ),
  'query-vision': json(queryEnvelope('vision', { type: 'string' }, 'The answer about the image.')),
  'query-image': json(
    queryEnvelope(
      'image',
      {
        type: 'array',
        items: {
          type: 'object',
          required: ['b64_json', 'mime_type'],
          properties: { b64_json: { type: 'string', contentEncoding: 'base64' }, mime_type: { type: 'string' } },
        },
      },
      'The images, base64.',
    ),
  ),
  'query-audio': json(queryEnvelope('audio', { type: 'string' }, 'The transcript (or its English translation).')),
  'query-speech': json(
    queryEnvelope(
      'speech',
      {
        type: 'object',
        required: ['audio_base64', 'format', 'sample_rate'],
        properties: {
          audio_base64: { type: 'string', contentEncoding: 'base64' },
          format: { enum: ['pcm16', 'wav', 'mp3'] },
          sample_rate: { type: 'integer', minimum: 1 },
        },
      },
      'The whole audio, base64.',
    ),
  ),
  'chat-upload': json(chatUploadSchema),
} satisfies Record<string, ResponseSpec>

/** The names a route's `response:` may give. */
export type ResponseName = keyof typeof responseSchemas
export const responseNames = Object.keys(responseSchemas) as ResponseName[]
