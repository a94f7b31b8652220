/**
 * Readers for the fields of a parsed JSON request body. Bodies arrive as `unknown`; these
 * narrow one field at a time and answer a 400 that names the field, as vLLM's validation does.
 * Unknown fields are ignored, like vLLM (`extra="allow"`).
 */
import { SimError } from './api-error.js'

export type JsonObject = Record<string, unknown>

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function invalid(field: string, expected: string): SimError {
  return new SimError(400, `${field}: Input should be ${expected}`, field)
}

export function optionalString(body: JsonObject, field: string): string | undefined {
  const value = body[field]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw invalid(field, 'a valid string')
  return value
}

export function requiredString(body: JsonObject, field: string): string {
  const value = optionalString(body, field)
  if (value === undefined) throw new SimError(400, `${field}: Field required`, field)
  return value
}

export function optionalBoolean(body: JsonObject, field: string): boolean | undefined {
  const value = body[field]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'boolean') throw invalid(field, 'a valid boolean')
  return value
}

export function optionalInteger(body: JsonObject, field: string): number | undefined {
  const value = body[field]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid(field, 'a valid integer')
  return value
}

export function optionalObject(body: JsonObject, field: string): JsonObject | undefined {
  const value = body[field]
  if (value === undefined || value === null) return undefined
  if (!isObject(value)) throw invalid(field, 'a valid dictionary')
  return value
}

export function optionalArray(body: JsonObject, field: string): unknown[] | undefined {
  const value = body[field]
  if (value === undefined || value === null) return undefined
  if (!Array.isArray(value)) throw invalid(field, 'a valid list')
  return value
}

/** `max_completion_tokens` wins over the deprecated `max_tokens`, as in vLLM. */
export function readMaxTokens(body: JsonObject): number | undefined {
  const max = optionalInteger(body, 'max_completion_tokens') ?? optionalInteger(body, 'max_tokens')
  if (max !== undefined && max < 1) throw new SimError(400, `max_tokens must be at least 1, got ${max}.`, 'max_tokens')
  return max
}

/** `stream`, and whether a usage chunk closes the stream (vLLM: include_usage defaults to true). */
export function readStreamFlags(body: JsonObject): {
  stream: boolean
  includeUsage: boolean
  continuousUsage: boolean
} {
  const stream = optionalBoolean(body, 'stream') ?? false
  const options = optionalObject(body, 'stream_options')
  if (options && !stream)
    throw new SimError(400, 'Stream options can only be defined when `stream=True`.', 'stream_options')
  return {
    stream,
    includeUsage: options !== undefined && optionalBoolean(options, 'include_usage') !== false,
    continuousUsage: options !== undefined && optionalBoolean(options, 'continuous_usage_stats') === true,
  }
}

/** vLLM's --max-logprobs default. */
export const maxLogprobs = 20

export function checkLogprobsCount(requested: number, field: string): void {
  if (requested > maxLogprobs) {
    throw new SimError(
      400,
      `Requested sample logprobs of ${requested}, which is greater than max allowed: ${maxLogprobs}`,
      field,
    )
  }
  if (requested < 0) throw new SimError(400, `\`${field}\` must be a non-negative value.`, field)
}

export function readN(body: JsonObject): number {
  const n = optionalInteger(body, 'n') ?? 1
  if (n < 1 || n > 128) throw new SimError(400, 'n must be between 1 and 128.', 'n')
  return n
}
