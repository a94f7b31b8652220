/**
 * GET /v1/audio/voices?model=<name>: vllm-omni's answer, `{"voices": [...], "uploaded_voices": []}`.
 * Without `model`, the first speech model's voices (a real server serves one model).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { SimError } from './api-error.js'
import { sendJson } from './http-io.js'
import { requireKind, type SimContext } from './sim-context.js'

export function handleVoices(sim: SimContext, req: IncomingMessage, res: ServerResponse): void {
  const name = new URL(req.url ?? '/', 'http://sim').searchParams.get('model')
  const model = name ? sim.engine(name).model : sim.config.models.find((m) => m.kind === 'speech')
  if (!model) throw new SimError(404, 'No speech model is served.')
  requireKind(sim.engine(model.name), 'speech', 'Speech')
  sendJson(res, 200, { voices: model.audio.voices, uploaded_voices: [] })
}
