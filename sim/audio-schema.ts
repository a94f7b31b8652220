/**
 * The `audio:` settings of a simulated speech or transcription model (config/simulator.yaml).
 * Defaults describe an Orpheus-like streaming speech server and a vLLM-like Whisper server.
 */

export const simAudioSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'Speech (kind: speech) and transcription (kind: transcription) behaviour.',
  properties: {
    // Speech
    streaming: {
      type: 'boolean',
      default: true,
      description: 'Speech: send audio as it is generated (Orpheus); false sends the whole file when done (Qwen3-TTS).',
    },
    voices: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      minItems: 1,
      default: ['tara', 'leah', 'jess', 'leo', 'dan', 'mia', 'zac', 'zoe'],
      description: 'Speech: the voices; the first is the default.',
    },
    languages: {
      type: 'array',
      items: { type: 'string' },
      default: [],
      description: 'Speech: accepted `language` values besides auto (case-insensitive); empty accepts and ignores any.',
    },
    speech_formats: {
      type: 'array',
      items: { type: 'string', enum: ['pcm', 'wav'] },
      default: ['pcm', 'wav'],
      description: 'Speech: response formats served (raw 24 kHz s16le, or WAV); others get 400.',
    },
    first_audio_ms: {
      type: 'number',
      minimum: 0,
      default: 0,
      description: 'Speech: time to the first audio after the request got its slot (x-sim-first-audio-ms overrides).',
    },
    realtime_factor: {
      type: 'number',
      minimum: 0,
      default: 0,
      description:
        'Seconds of audio made (speech) or read (transcription) per second of work; 0 = instantly (x-sim-realtime-factor overrides).',
    },
    ms_per_char: {
      type: 'number',
      exclusiveMinimum: 0,
      default: 65,
      description: 'Speech: milliseconds of speech per character of input (punctuation pauses three times as long).',
    },
    chunk_samples: {
      type: 'integer',
      minimum: 1,
      default: 2048,
      description: 'Speech: samples per streamed chunk (2048, one SNAC window of Orpheus ≈ 85 ms).',
    },
    engine: {
      type: 'string',
      enum: ['synthetic', 'espeak-ng'],
      default: 'synthetic',
      description:
        'Speech: `synthetic` (formant tones per character, no dependency) or `espeak-ng` (a real voice, needs the espeak-ng program).',
    },
    // Transcription
    translation: { type: 'boolean', default: false, description: 'Transcription: also serves /v1/audio/translations.' },
    transcript_formats: {
      type: 'array',
      items: { type: 'string', enum: ['json', 'text', 'srt', 'vtt', 'verbose_json'] },
      default: ['json', 'text', 'verbose_json'],
      description: "Transcription: response formats served (vLLM: json, text, verbose_json); others get vLLM's 400.",
    },
    duration_type: {
      type: 'string',
      enum: ['number', 'string'],
      default: 'string',
      description: 'Transcription: type of verbose_json `duration` (vLLM sends a string, OpenAI a number).',
    },
    language_style: {
      type: 'string',
      enum: ['code', 'name'],
      default: 'code',
      description: 'Transcription: `language` in verbose_json as an ISO code (en) or a name (english).',
    },
    segment_seconds: {
      type: 'number',
      exclusiveMinimum: 0,
      default: 5,
      description: 'Transcription: length of one transcript segment.',
    },
  },
} as const
