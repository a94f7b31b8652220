/**
 * The OpenAI embeddings wire: what an embeddings request may cost, which `dimensions` a model
 * takes, and vectors as floats or as base64 (little-endian float32, which is what the openai
 * SDK decodes: `new Float32Array(Buffer.from(b64, 'base64').buffer)` on a little-endian host).
 */
import type { Demand } from '../../kernel/contract/index.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import { utf8Bytes } from './token-estimate.js'

/** Special tokens an embedding model's tokenizer adds around each input ([CLS] … [SEP], BOS … EOS). */
const SPECIAL_TOKENS_PER_INPUT = 2

/** The inputs of a request as a list: a string or one token-id array is one input. */
export function inputList(input: unknown): unknown[] {
  if (typeof input === 'string') return [input]
  if (Array.isArray(input) && input.length > 0 && typeof input[0] === 'number') return [input]
  return Array.isArray(input) ? input : []
}

/**
 * An upper bound of the input tokens: a token covers at least one UTF-8 byte, a token id is one
 * token, and each input gets its special tokens. Nothing is generated.
 */
export function embeddingsDemand(body: unknown): Demand {
  let tokens = 0
  for (const item of inputList((body as { input?: unknown } | null)?.input)) {
    if (typeof item === 'string') tokens += utf8Bytes(item) + SPECIAL_TOKENS_PER_INPUT
    else if (Array.isArray(item)) tokens += item.length
  }
  return { inputTokens: tokens, outputTokens: 0, choices: 1, adjustable: false }
}

/**
 * Why a model cannot take `dimensions`, or undefined when it can. A model with
 * `supports_dimensions` (Matryoshka) takes 1 to its `dimensions`; any other takes only its own
 * size, which changes nothing.
 */
export function dimensionsRefusal(model: ModelConfig, requested: string, dimensions: number): string | undefined {
  if (model.supports_dimensions) {
    return model.dimensions !== undefined && dimensions > model.dimensions
      ? `model ${requested} returns at most ${model.dimensions} dimensions; ${dimensions} were asked`
      : undefined
  }
  if (dimensions === model.dimensions) return undefined
  return `model ${requested} does not support dimensions${model.dimensions !== undefined ? ` (its vectors have ${model.dimensions})` : ''}`
}

/** Floats as base64 of little-endian float32: the OpenAI `encoding_format: base64`. */
export function toBase64(vector: readonly number[]): string {
  const buf = Buffer.allocUnsafe(vector.length * 4)
  for (let i = 0; i < vector.length; i++) buf.writeFloatLE(vector[i] ?? 0, i * 4)
  return buf.toString('base64')
}

/** A base64 float32 vector back to numbers. */
export function fromBase64(text: string): number[] {
  const buf = Buffer.from(text, 'base64')
  const out = new Array<number>(buf.length >> 2)
  for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4)
  return out
}

/**
 * The first `dimensions` components, scaled back to unit length: a Matryoshka model's shorter
 * vector, as vLLM makes it.
 */
export function shortened(vector: readonly number[], dimensions: number): number[] {
  const head = vector.slice(0, dimensions)
  const norm = Math.sqrt(head.reduce((sum, v) => sum + v * v, 0))
  return norm > 0 ? head.map((v) => v / norm) : head
}
