/**
 * An audio file in a JSON body: the in-process twin of the multipart transcription form, for
 * plugins that call the transcription route through kernel.call (`audio-transcriptions-internal`,
 * read by the `json-upload` step). Fields other than the file are those of the form.
 */
import type { FromSchema } from 'json-schema-to-ts'

export const audioFileRequestSchema = {
  $id: 'sluice:audio-file-request',
  type: 'object',
  required: ['model', 'file_base64'],
  additionalProperties: false,
  properties: {
    model: { type: 'string', minLength: 1 },
    file_base64: { type: 'string', minLength: 1, description: 'The audio file, base64.' },
    filename: { type: 'string' },
    content_type: { type: 'string' },
    language: { type: 'string' },
    prompt: { type: 'string' },
    response_format: { type: 'string', enum: ['json', 'text', 'srt', 'vtt', 'verbose_json'] },
  },
} as const

export type AudioFileRequest = FromSchema<typeof audioFileRequestSchema>
