/**
 * What must be equal for a cached answer to stand for a new one: the project and every setting
 * that shapes an answer (model, model parameters other than the voice and audio formats, search,
 * history with its session, response format, enhancement). Only the question itself may differ,
 * and that by at most the similarity threshold.
 */
import type { QueryRequest } from '../../schemas/query-request.schema.js'

/** model_params fields that change the speech, not the answer. */
const SPEECH_ONLY = new Set(['voice', 'input_audio_format', 'output_audio_format', 'modalities'])

export function cacheScope(projectId: string, body: QueryRequest): string {
  const modelParams = Object.fromEntries(
    Object.entries(body.model_params ?? {})
      .filter(([k]) => !SPEECH_ONLY.has(k))
      .sort(([a], [b]) => a.localeCompare(b)),
  )
  return JSON.stringify([
    projectId,
    body.model_provider ?? null,
    body.model_name ?? null,
    modelParams,
    body.enable_search ?? null,
    body.search_params ?? null,
    body.enable_history ? (body.session_id ?? null) : false,
    body.response_format ?? null,
    body.enhance_prompt ?? null,
  ])
}
