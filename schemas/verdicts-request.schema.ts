/**
 * The verdicts request (spec: "Verdicts request"). Deliberately permissive: the rules that have
 * messages of their own in the spec (question type, state, counts, sizes) are enforced by the
 * `verdicts` plugin, so that ajv's generic wording never takes their place. The schema only
 * types what has no message of its own; unknown fields, `temperature`, `max_tokens` and
 * `stream` are accepted and ignored.
 */
import type { FromSchema } from 'json-schema-to-ts'

export const verdictsRequestSchema = {
  $id: 'sluice:verdicts-request',
  type: 'object',
  properties: {
    model: {
      type: ['string', 'null'],
      description: 'A chat model id, a family, or `auto`; default: the deployment default model.',
    },
    state: {
      description:
        'What the questions are about: a string (used as written), an object or an array (indented JSON). Checked by the plugin.',
    },
    images: {
      type: 'array',
      items: { type: 'string' },
      description: 'Base64 data URLs or public https:// URLs; counts and sizes are checked by the plugin.',
    },
    questions: {
      type: 'object',
      description: 'Questions keyed by a caller-chosen id; count, ids, types and criteria are checked by the plugin.',
      additionalProperties: {
        type: 'object',
        properties: {
          type: { description: '`boolean`, `choice` or `score`; checked by the plugin for the spec message.' },
          instructions: { type: 'string', description: 'The question itself.' },
          criteria: { description: 'Per type: the meanings of true/false, the options, or the levels.' },
        },
      },
    },
  },
} as const

export type VerdictsRequest = FromSchema<typeof verdictsRequestSchema>
