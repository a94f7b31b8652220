/** A transcription model's `audio:` settings (config/models.yaml) with their defaults. */
import type { ModelConfig } from '../../schemas/models.schema.js'
import type { TranscriptFormat } from './subtitle-render.js'

export interface TranscriptionSettings {
  /** The server also translates into English. */
  readonly translation: boolean
  /** Response formats the server renders itself. */
  readonly formats: ReadonlySet<TranscriptFormat>
}

export function transcriptionSettings(model: ModelConfig): TranscriptionSettings {
  const a = model.audio ?? {}
  return { translation: a.translation ?? false, formats: new Set(a.formats ?? ['json', 'text', 'verbose_json']) }
}
