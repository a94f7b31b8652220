/**
 * Voices: a request names one of the server's own voices, or a name of the widely used
 * standard set (alloy, echo, nova …) that config maps onto them. Names match without regard
 * to case; the server gets its own spelling.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import type { SpeechSettings } from './speech-settings.js'

/** The SDK sends a custom voice as `{id}`; either way it is a name here. */
export type RequestedVoice = string | { id: string } | undefined

export function resolveVoice(settings: SpeechSettings, requested: RequestedVoice): string {
  const name = typeof requested === 'object' ? requested.id : requested
  if (name === undefined || name === '') {
    if (settings.defaultVoice !== undefined) return settings.defaultVoice
    throw new GatewayError(400, 'voice is required', { code: 'invalid_request' })
  }
  // A server that lists no voices gets the name as sent.
  if (settings.voices.length === 0) return settings.voiceMap.get(name.toLowerCase()) ?? name
  const lower = name.toLowerCase()
  const own = settings.voices.find((v) => v.toLowerCase() === lower)
  if (own !== undefined) return own
  const mapped = settings.voiceMap.get(lower)
  if (mapped !== undefined) return settings.voices.find((v) => v.toLowerCase() === mapped.toLowerCase()) ?? mapped
  const aliases = settings.voiceMap.size > 0 ? ` (or one of ${[...settings.voiceMap.keys()].join(', ')})` : ''
  throw new GatewayError(
    400,
    `voice ${name} is not available for model ${settings.modelId}; use one of ${settings.voices.join(', ')}${aliases}`,
    { code: 'invalid_request' },
  )
}
