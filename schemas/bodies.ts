/** Request-body schemas by the name a route's `body:` gives. */
import { chatRequestSchema } from './chat-request.schema.js'
import { completionRequestSchema } from './completion-request.schema.js'
import { embeddingsRequestSchema } from './embeddings-request.schema.js'
import { speechRequestSchema } from './speech-request.schema.js'
import { verdictsRequestSchema } from './verdicts-request.schema.js'

export const bodySchemas: Readonly<Record<string, object>> = {
  'chat-request': chatRequestSchema,
  'completion-request': completionRequestSchema,
  'embeddings-request': embeddingsRequestSchema,
  'speech-request': speechRequestSchema,
  'verdicts-request': verdictsRequestSchema,
}
