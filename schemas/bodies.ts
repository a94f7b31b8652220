/** Request-body schemas by the name a route's `body:` gives. */
import { chatRequestSchema } from './chat-request.schema.js'
import { completionRequestSchema } from './completion-request.schema.js'
import { messagesCountRequestSchema, messagesRequestSchema } from './messages-request.schema.js'
import { responsesRequestSchema } from './responses-request.schema.js'
import { embeddingsRequestSchema } from './embeddings-request.schema.js'
import { rerankRequestSchema } from './rerank-request.schema.js'
import { speechRequestSchema } from './speech-request.schema.js'
import { verdictsRequestSchema } from './verdicts-request.schema.js'
import { queryRequestSchema } from './query-request.schema.js'
import { queryRerankRequestSchema, querySearchRequestSchema, queryVisionRequestSchema } from './query-bodies.schema.js'
import { imagesRequestSchema } from './images-request.schema.js'
import { audioFileRequestSchema } from './audio-file-request.schema.js'
import { queryAudioRequestSchema, queryImageRequestSchema, querySpeechRequestSchema } from './query-media.schema.js'
import { queryCompareRequestSchema } from './query-compare-request.schema.js'
import { webSearchRequestSchema } from './web-search-request.schema.js'

export const bodySchemas: Readonly<Record<string, object>> = {
  'chat-request': chatRequestSchema,
  'completion-request': completionRequestSchema,
  'messages-request': messagesRequestSchema,
  'messages-count-request': messagesCountRequestSchema,
  'responses-request': responsesRequestSchema,
  'embeddings-request': embeddingsRequestSchema,
  'rerank-request': rerankRequestSchema,
  'speech-request': speechRequestSchema,
  'verdicts-request': verdictsRequestSchema,
  'query-request': queryRequestSchema,
  'query-search-request': querySearchRequestSchema,
  'query-vision-request': queryVisionRequestSchema,
  'query-rerank-request': queryRerankRequestSchema,
  'images-request': imagesRequestSchema,
  'audio-file-request': audioFileRequestSchema,
  'query-image-request': queryImageRequestSchema,
  'query-audio-request': queryAudioRequestSchema,
  'query-speech-request': querySpeechRequestSchema,
  'query-compare-request': queryCompareRequestSchema,
  'web-search-request': webSearchRequestSchema,
}
