/**
 * A speech model's `audio:` settings (config/models.yaml) with the speech defaults filled in,
 * checked once at load so that a voice map pointing at a voice the server lacks is a boot
 * error, not a 400 at request time.
 */
import type { ModelConfig } from '../../schemas/models.schema.js'
import type { SpeechFormat } from '../../schemas/speech-request.schema.js'

export interface SpeechSettings {
  readonly modelId: string
  /** The server sends audio as it is generated; else the whole file when done. */
  readonly streaming: boolean
  /** The server's voices; empty means "not listed": any voice goes to the server as sent. */
  readonly voices: readonly string[]
  readonly defaultVoice: string | undefined
  /** Lower-case alias → one of `voices`. */
  readonly voiceMap: ReadonlyMap<string, string>
  /** Lower-case language names accepted besides `auto`. */
  readonly languages: readonly string[]
  readonly languageCase: 'lower' | 'title'
  readonly speed: boolean
  readonly instructions: 'pass' | 'ignore'
  readonly maxInputChars: number | undefined
  readonly nativeFormats: ReadonlySet<SpeechFormat>
  readonly pcmFrom: 'pcm' | 'wav'
  readonly sampleRate: number
}

export function speechSettings(model: ModelConfig): SpeechSettings {
  const a = model.audio ?? {}
  const voices = a.voices ?? []
  const known = new Set(voices.map((v) => v.toLowerCase()))
  const where = `model ${model.id}: audio`
  const voiceMap = new Map<string, string>()
  for (const [alias, target] of Object.entries(a.voice_map ?? {})) {
    if (known.size > 0 && !known.has(target.toLowerCase()))
      throw new Error(`${where}.voice_map: ${alias} → ${target} is not one of its voices (${voices.join(', ')})`)
    voiceMap.set(alias.toLowerCase(), target)
  }
  if (a.default_voice !== undefined && known.size > 0 && !known.has(a.default_voice.toLowerCase()))
    throw new Error(`${where}.default_voice: ${a.default_voice} is not one of its voices (${voices.join(', ')})`)
  return {
    modelId: model.id,
    streaming: a.streaming ?? false,
    voices,
    defaultVoice: a.default_voice ?? voices[0],
    voiceMap,
    languages: (a.languages ?? ['english']).map((l) => l.toLowerCase()),
    languageCase: a.language_case ?? 'lower',
    speed: a.speed ?? true,
    instructions: a.instructions ?? 'pass',
    maxInputChars: a.max_input_chars,
    nativeFormats: new Set(a.native_formats ?? ['pcm']),
    pcmFrom: a.pcm_from ?? 'pcm',
    sampleRate: a.sample_rate ?? 24000,
  }
}

/** Settings of every speech model of the catalog, by catalog id; throws on the first inconsistency. */
export function speechSettingsByModel(models: readonly ModelConfig[]): ReadonlyMap<string, SpeechSettings> {
  const out = new Map<string, SpeechSettings>()
  for (const m of models) if (m.model_type === 'audio_speech') out.set(m.id, speechSettings(m))
  return out
}
