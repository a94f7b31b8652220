/**
 * query-realtime: `endpoint: "realtime"` on the Query service's WebSocket (spec 001, "Realtime
 * request"). The audio is transcribed through the transcription route; the instruction and the
 * transcript then become a query that the route's next step, `query`, answers as it answers any
 * query over the socket (search, history, enhancement, usage_metric: the same code, reached
 * through the pipeline rather than an import). This step renames that stream's messages after
 * OpenAI Realtime's, speaks the answer through the speech route when audio is asked, and ends
 * with the usage by part. With `semantic_caching`, a question close enough to one answered
 * before under the same settings is answered from the cache, and the `query` step never runs.
 * Every call is kernel.call under the project's key: queued, budgeted and recorded.
 */
import { randomUUID } from 'node:crypto'
import { GatewayError, definePlugin, reply } from '../../kernel/contract/index.js'
import { memorySemanticCache } from '../../domains/query/semantic-cache.js'
import { checkOwnParams, QUERY_OWN_PARAMETERS } from '../../protocols/query/own-params.js'
import { mediaModel } from '../../protocols/query/media-model.js'
import type { QueryRequest } from '../../schemas/query-request.schema.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import { inputAudio } from './input-audio.js'
import { cacheScope } from './cache-scope.js'
import { embedQuestion, speak, transcribe, type CallContext, type OutputFormat } from './route-calls.js'
import { realtimeStream, type AnswerSource, type SpeechPlan } from './realtime-stream.js'
import { configSchema } from './schema.js'

export default definePlugin({
  name: 'query-realtime',
  config: configSchema,
  requires: ['queryAuth', 'principal'],
  provides: [],
  setup(config, kernel) {
    const cacheConfig = config.semantic_cache
    const cache = memorySemanticCache({
      threshold: cacheConfig.threshold,
      maxEntries: cacheConfig.max_entries,
      maxAgeMs: cacheConfig.max_age_ms,
      now: () => kernel.now(),
    })
    const routes = {
      transcribe: config.transcribe_route,
      speech: config.speech_route,
      embeddings: config.embeddings_route,
    }
    const embeddingModel = (): ModelConfig => {
      const models = kernel.catalog.models()
      const asked = config.embedding_model
      const model =
        asked !== undefined
          ? models.find((m) => m.id === asked)
          : models.find((m) => m.model_type === 'embedding' && m.enabled !== false)
      if (!model)
        throw new GatewayError(
          503,
          asked !== undefined
            ? `the semantic cache's embedding model ${asked} is not in the catalog`
            : 'no embedding model is configured for the semantic cache',
        )
      return model
    }
    return {
      async request(ex, next) {
        const body = ex.body as QueryRequest
        const { project, token } = ex.state.queryAuth
        // Checked here too: a cached answer skips the query step, which checks it otherwise.
        checkOwnParams(token.kind, body, QUERY_OWN_PARAMETERS)
        const params = { ...project.defaults.model_params, ...body.model_params }
        const audioIn = inputAudio(body.audio_file, params.input_audio_format, config.max_file_bytes)
        const models = kernel.catalog.models()
        const transcriber = mediaModel(models, 'audio_transcription', config.transcription_model)
        const modalities = params.modalities ?? ['text', 'audio']
        const c: CallContext = {
          call: (id, b, o) => kernel.call(id, b, o),
          options: { principal: ex.principal, signal: ex.signal, parentId: ex.id },
        }
        let speech: SpeechPlan | undefined
        if (modalities.includes('audio')) {
          const speaker = mediaModel(models, 'audio_speech', config.speech_model)
          const format: OutputFormat = params.output_audio_format ?? 'pcm16'
          const voice = params.voice
          speech = {
            model: speaker.id,
            format,
            voice,
            sampleRate: speaker.audio?.sample_rate ?? 24000,
            speak: (text) => speak(c, routes.speech, speaker, text, format, voice),
          }
        }

        const transcript = { ...(await transcribe(c, routes.transcribe, transcriber, audioIn)), model: transcriber.id }
        // The model is asked the instruction about what was said.
        const question = `${body.query}\n\n${transcript.text}`
        let lookup: (Awaited<ReturnType<typeof embedQuestion>> & { model: string }) | undefined
        let answer: AnswerSource | undefined
        let answered: ((text: string, sources: unknown) => Promise<void>) | undefined
        if (body.semantic_caching) {
          const embedder = embeddingModel()
          lookup = { ...(await embedQuestion(c, routes.embeddings, embedder, question)), model: embedder.id }
          const scope = cacheScope(project.id, body)
          const vector = lookup.vector
          const hit = await cache.find(scope, vector)
          if (hit)
            answer = {
              kind: 'cached',
              text: hit.answer.text,
              sources: hit.answer.sources,
              similarity: hit.similarity,
              queryId: `q-${randomUUID()}`,
            }
          else answered = (text, sources) => cache.keep(scope, vector, { text, sources })
        }
        if (!answer) {
          const asQuery: Record<string, unknown> = { ...body, endpoint: 'query', query: question }
          delete asQuery.audio_file
          delete asQuery.semantic_caching
          ex.body = asQuery
          await next()
          if (ex.reply?.kind !== 'events')
            throw new GatewayError(
              500,
              'the query step did not stream its answer (query-realtime must come before query, on a WebSocket route)',
            )
          answer = { kind: 'streamed', events: ex.reply.events }
        }
        ex.reply = reply.events(realtimeStream({ transcript, lookup, answer, speech, answered }))
      },
    }
  },
})
