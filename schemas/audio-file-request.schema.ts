/**
 * The JSON twin of a transcription or translation upload, for in-process callers
 * (kernel.call('audio-transcriptions-internal' | 'audio-translations-internal', …)): the file
 * as base64 instead of a multipart part, and the form's text fields as JSON strings.
 */
import type { FromSchema } from 'json-schema-to-ts'

export const audioFileRequestSchema = {
  $id: 'sluice:audio-file-request',
  type: 'object',
  required: ['model', 'file_base64'],
  properties: {
    model: { type: 'string', minLength: 1 },
    file_base64: { type: 'string', minLength: 1 },
    filename: { type: 'string', minLength: 1, maxLength: 255 },
    content_type: { type: 'string', minLength: 1, maxLength: 128 },
    language: { type: 'string' },
    prompt: { type: 'string' },
    response_format: { type: 'string' },
    temperature: { type: 'number' },
    /** Which the route does is the route's (transcriptions or translations); a different one sent here is refused. */
    task: { type: 'string', enum: ['transcribe', 'translate'] },
  },
} as const

export type AudioFileRequest = FromSchema<typeof audioFileRequestSchema>
