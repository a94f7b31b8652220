/**
 * The `audio:` settings of a model in config/models.yaml: how the gateway talks to a speech
 * server (audio_speech models) or a transcription server (audio_transcription models). One
 * object for both kinds, so a typo is a boot error whatever the route; each property says which
 * kind it is for. Defaults are applied by the plugin that reads them (speech, transcription),
 * because they differ by kind and would only confuse the other kind's entries.
 */
import type { FromSchema } from 'json-schema-to-ts'

const speechFormat = { type: 'string', enum: ['mp3', 'opus', 'flac', 'wav', 'pcm'] } as const
const transcriptFormat = { type: 'string', enum: ['json', 'text', 'srt', 'vtt', 'verbose_json'] } as const

export const audioSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'Speech and transcription settings of the model server (see docs/operator-guide.md, "Audio models").',
  properties: {
    // Speech (audio_speech)
    streaming: {
      type: 'boolean',
      description:
        'Speech: the server sends audio as it is generated (Orpheus). Default false: the whole file when done (Qwen3-TTS).',
    },
    voices: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      minItems: 1,
      description: 'Speech: the voices the server has; GET /audio/voices lists them.',
    },
    default_voice: {
      type: 'string',
      description: 'Speech: voice used when the request names none (default: the first of `voices`).',
    },
    voice_map: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Speech: other voice names (the standard set: alloy, echo, nova …) mapped onto `voices`.',
    },
    languages: {
      type: 'array',
      items: { type: 'string' },
      description:
        'Speech: the `language` values accepted besides `auto` (lower-case names, e.g. english, french). Default: [english].',
    },
    language_case: {
      type: 'string',
      enum: ['lower', 'title'],
      description:
        'Speech: how the server spells languages: `lower` (english) or `title` (English, as vllm-omni). Default lower.',
    },
    speed: {
      type: 'boolean',
      description: 'Speech: the server honours `speed`. Default true; false refuses any speed other than 1.0.',
    },
    instructions: {
      type: 'string',
      enum: ['pass', 'ignore'],
      description: 'Speech: `pass` sends `instructions` (a style in words); `ignore` drops them. Default pass.',
    },
    max_input_chars: {
      type: 'integer',
      minimum: 1,
      description:
        "Speech: longest `input`, in characters (Unicode code points). Default: no limit of the gateway's own.",
    },
    native_formats: {
      type: 'array',
      items: speechFormat,
      description:
        'Speech: formats the server encodes itself. Others are encoded by the gateway from PCM. Default [pcm].',
    },
    pcm_from: {
      type: 'string',
      enum: ['pcm', 'wav'],
      description:
        'Speech: how to get raw PCM from the server: ask for `pcm`, or ask for `wav` and strip its header (Orpheus-FastAPI). Default pcm.',
    },
    sample_rate: {
      type: 'integer',
      minimum: 8000,
      description: "Speech: sample rate of the server's PCM. Default 24000.",
    },
    // Transcription (audio_transcription)
    translation: {
      type: 'boolean',
      description: 'Transcription: the server also translates into English (POST /audio/translations). Default false.',
    },
    formats: {
      type: 'array',
      items: transcriptFormat,
      description:
        'Transcription: response formats the server renders itself (vLLM: json, text, verbose_json). The gateway renders the rest from segments. Default [json, text, verbose_json].',
    },
  },
} as const

export type AudioSettings = FromSchema<typeof audioSettingsSchema>
