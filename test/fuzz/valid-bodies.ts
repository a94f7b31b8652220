/**
 * A valid body for each JSON route of the shipped pipelines: what the mutators start from, so
 * that most inputs get past the parser and reach the plugins. By the route's body schema, and by
 * route id for the admin API's schema-less bodies; other routes start from `{}`. Admin ids are
 * the fuzzer's own (`fuzz-…`), so no mutation can rewrite the demo group or key.
 */
import type { Target } from './door.js'

const bySchema: Record<string, unknown> = {
  'chat-request': { model: 'sim-chat-instruct', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 },
  'completion-request': { model: 'sim-chat-instruct', prompt: 'Once upon', max_tokens: 4 },
  'verdicts-request': {
    model: 'sim-chat-instruct',
    state: 'The sky is blue.',
    questions: { blue: { type: 'boolean', instructions: 'Is the sky blue?' } },
  },
  'speech-request': { model: 'sim-orpheus', input: 'Hello there.', voice: 'tara', response_format: 'wav' },
  'responses-request': {
    model: 'sim-chat-instruct',
    input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
    instructions: 'Be brief.',
    max_output_tokens: 8,
    store: true,
  },
  'messages-request': {
    model: 'sim-chat-instruct',
    max_tokens: 8,
    system: 'Be brief.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  },
  'messages-count-request': { model: 'sim-chat-instruct', messages: [{ role: 'user', content: 'hi' }] },
  'embeddings-request': { model: 'sim-embed', input: ['Once upon', 'a time'], encoding_format: 'float' },
}

const byRoute: Record<string, unknown> = {
  'admin-groups-put': {
    models: ['sim-chat-instruct'],
    weight: 1,
    budget: { amount: 10, term: 'month' },
    tokens_per_minute: 1000,
  },
  'admin-keys-create': { group: 'demo', enabled: true, budget: { amount: 1, term: 'day' } },
  'admin-keys-update': { enabled: false, tokens_per_minute: 100 },
}

/** Extra chat bodies that reach other plugins: streaming, tools, images, structured output, auto. */
const chatVariants: unknown[] = [
  {
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 8,
    stream: true,
    stream_options: { include_usage: true },
  },
  { model: 'sim-chat', reasoning_effort: 'high', messages: [{ role: 'user', content: 'think' }], max_tokens: 16 },
  {
    model: 'auto',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
    ],
    max_tokens: 8,
  },
  {
    model: 'sim-text-boon',
    messages: [
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
    ],
    max_tokens: 8,
  },
  {
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'call it' }],
    max_tokens: 20,
    tools: [
      {
        type: 'function',
        function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } } },
      },
    ],
    tool_choice: 'required',
  },
  {
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'form' }],
    max_tokens: 20,
    response_format: {
      type: 'json_schema',
      json_schema: { name: 's', schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
    },
  },
]

export function validBody(target: Target, pick: <T>(items: readonly T[]) => T): unknown {
  if (target.body.kind === 'json' && target.body.schema === 'chat-request')
    return pick([bySchema['chat-request'], ...chatVariants])
  if (target.body.kind === 'json' && target.body.schema !== undefined && target.body.schema in bySchema)
    return bySchema[target.body.schema]
  return byRoute[target.routeId] ?? {}
}

/** Path parameters that name something plausible: a model for /v1, the fuzzer's own ids for /admin. */
export function plausibleParam(target: Target): string {
  return target.pipeline === 'admin' ? 'fuzz-1' : 'sim-chat-instruct'
}
