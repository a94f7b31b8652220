/**
 * The model of a Query service media request (image, audio, speech): the request's
 * `model_name`, which must be a catalog model of the body type's kind, or else the catalog's
 * first model of that kind. `model_provider`, when sent, must be `gateway` (Sluice's own
 * catalog): the media body types reach models only through the gateway's routes.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import { checkOwnParams } from './own-params.js'

type MediaType = 'image' | 'audio_transcription' | 'audio_speech'

const WHAT: Readonly<Record<MediaType, string>> = {
  image: 'an image generation',
  audio_transcription: 'a transcription',
  audio_speech: 'a speech',
}

export function checkMediaProvider(provider: string | undefined): void {
  if (provider !== undefined && provider !== 'gateway')
    throw new GatewayError(
      400,
      `model_provider ${provider} does not serve this body type; use gateway (the catalog's models)`,
      { code: 'invalid_request' },
    )
}

/** The catalog model that answers: the one asked for, or the first of its kind. */
export function mediaModel(models: readonly ModelConfig[], type: MediaType, asked: string | undefined): ModelConfig {
  if (asked !== undefined) {
    const model = models.find((m) => m.id === asked)
    if (!model) throw new GatewayError(404, `model_name ${asked} is not in the catalog`)
    if (model.model_type !== type)
      throw new GatewayError(400, `model_name ${asked} is not ${WHAT[type]} model`, { code: 'invalid_request' })
    return model
  }
  const first = models.find((m) => m.model_type === type && m.enabled !== false)
  if (!first) throw new GatewayError(503, `no ${WHAT[type].replace(/^an? /, '')} model is configured`)
  return first
}

/** Fields of a media body that a project has defaults for (the service-token rule applies to them). */
const MEDIA_OWN_PARAMS = ['model_provider', 'model_name']

/** The checks every media body type makes first, and the model that answers it. */
export function mediaRequestModel(
  tokenKind: 'developer' | 'service',
  body: Readonly<{ model_provider?: string; model_name?: string }> & Readonly<Record<string, unknown>>,
  models: readonly ModelConfig[],
  type: MediaType,
): ModelConfig {
  checkOwnParams(tokenKind, body, MEDIA_OWN_PARAMS)
  checkMediaProvider(body.model_provider)
  return mediaModel(models, type, body.model_name)
}
