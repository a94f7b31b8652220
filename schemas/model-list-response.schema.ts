/**
 * The model entries of GET /v1/models and GET /v1/models/{id} (plugins/model-catalog, entry.ts):
 * the spec's model entry with the catalog's capabilities, reasoning levels, family, boons and,
 * on models being retired, their status and replacement.
 */
export const modelEntrySchema = {
  description: "A catalog model, or a family (with `family`), as the spec's model entry.",
  type: 'object',
  required: [
    'id',
    'object',
    'created',
    'owned_by',
    'model_type',
    'context_window',
    'supports_function_calling',
    'supports_response_schema',
    'supports_vision',
    'supports_tool_choice',
    'reasoning',
    'boons',
    'boon_details',
  ],
  properties: {
    id: { type: 'string' },
    object: { const: 'model' },
    created: { type: 'integer' },
    owned_by: { type: 'string' },
    model_type: {
      type: 'string',
      description: '`chat`, `embedding`, `rerank`, `image`, `audio_speech`, `audio_transcription` …',
    },
    context_window: { type: 'integer', minimum: 1 },
    supports_function_calling: { type: 'boolean' },
    supports_response_schema: { type: 'boolean' },
    supports_vision: { type: 'boolean' },
    supports_tool_choice: { type: 'boolean' },
    reasoning: {
      type: 'object',
      required: ['mode'],
      properties: {
        mode: { enum: ['mapped', 'unsupported'] },
        levels: { type: 'array', items: { type: 'string' } },
        default_level: { type: 'string' },
      },
    },
    family: {
      type: 'object',
      required: ['default_level', 'members'],
      properties: {
        default_level: { type: 'string' },
        members: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
    boons: { type: 'array', items: { type: 'string' } },
    boon_details: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'active'],
        properties: { name: { type: 'string' }, active: { type: 'boolean' }, helper_model: { type: 'string' } },
      },
    },
    status: { const: 'deprecated' },
    replacement: { type: 'string' },
    retire_at: { type: 'string' },
    note: { type: 'string' },
  },
} as const

export const modelListSchema = {
  description: 'The catalog: models not yet retired, then the families.',
  type: 'object',
  required: ['object', 'data'],
  properties: { object: { const: 'list' }, data: { type: 'array', items: modelEntrySchema } },
} as const
