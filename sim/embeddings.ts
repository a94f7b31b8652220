/**
 * POST /v1/embeddings: deterministic unit vectors (the same input always gives the same
 * vector; different inputs are nearly orthogonal), in vLLM's shape, as floats or base64
 * little-endian float32.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { SimError } from './api-error.js'
import { optionalInteger, optionalString, requiredString } from './body-fields.js'
import { modelNameOf, requireJsonObject } from './chat.js'
import { checkPoolingInput } from './context-window.js'
import { planFailure } from './failures.js'
import { poolingJob, runGeneration } from './generation-run.js'
import { responseId, unixSeconds } from './ids.js'
import { textPromptTokens } from './prompt.js'
import { hashString, SeededRandom } from './seeded-random.js'
import { requireKind, type SimContext } from './sim-context.js'

export function handleEmbeddings(
  sim: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  arrival: number,
): void | Promise<void> {
  const json = requireJsonObject(body)
  const failure = planFailure(req.headers, sim.settings.failure, sim.random, modelNameOf(json))
  if (failure.error) throw failure.error
  const engine = sim.engine(requiredString(json, 'model'))
  requireKind(engine, 'embedding', 'Embeddings')
  const format = optionalString(json, 'encoding_format') ?? 'float'
  if (format !== 'float' && format !== 'base64') {
    throw new SimError(400, "encoding_format: Input should be 'float' or 'base64'", 'encoding_format')
  }
  const dims = readDimensions(optionalInteger(json, 'dimensions'), engine.model)
  const inputs = readInputs(json.input)
  const prompts = inputs.map((input) => textPromptTokens(input))
  for (const ids of prompts) checkPoolingInput(ids.length, engine.model.max_model_len)
  const promptTokens = prompts.reduce((sum, ids) => sum + ids.length, 0)
  const reply = {
    id: responseId('embd'),
    object: 'list',
    created: unixSeconds(),
    model: engine.model.name,
    data: inputs.map((input, index) => ({
      index,
      object: 'embedding',
      embedding: encode(
        unitVector(
          `${engine.model.name}\n${typeof input === 'string' ? input : input.join(',')}`,
          dims,
          sim.config.seed,
        ),
        format,
      ),
    })),
    usage: {
      prompt_tokens: promptTokens,
      total_tokens: promptTokens,
      completion_tokens: 0,
      prompt_tokens_details: null,
    },
  }
  return runGeneration(
    poolingJob(engine, prompts, () => reply),
    sim.runEnv(req, res, failure, arrival),
  )
}

function readDimensions(
  requested: number | undefined,
  model: { name: string; embedding_dims: number; matryoshka: boolean },
): number {
  const native = model.embedding_dims
  if (requested === undefined) return native
  // vLLM's refusal for a model without a Matryoshka representation, whatever the number.
  if (!model.matryoshka) {
    throw new SimError(
      400,
      `Model "${model.name}" does not support matryoshka representation, changing output dimensions will lead to poor results.`,
      'dimensions',
    )
  }
  // A Matryoshka model: a shorter prefix, renormalised.
  if (requested < 1 || requested > native) {
    throw new SimError(400, `dimensions must be between 1 and ${native} for this model.`, 'dimensions')
  }
  return requested
}

function readInputs(input: unknown): Array<string | number[]> {
  const isTokens = (value: unknown): value is number[] =>
    Array.isArray(value) && value.length > 0 && value.every(Number.isInteger)
  if (typeof input === 'string') return [input]
  if (isTokens(input)) return [input]
  if (Array.isArray(input) && input.length > 0 && input.every((item) => typeof item === 'string' || isTokens(item))) {
    return input as Array<string | number[]>
  }
  throw new SimError(400, 'input: Input should be a string, a list of strings or a list of token ids', 'input')
}

function unitVector(key: string, dims: number, seed: number): number[] {
  const random = new SeededRandom(hashString(key, seed))
  const vector = new Array<number>(dims)
  let norm = 0
  for (let i = 0; i < dims; i++) {
    const value = random.gaussian(0, 1)
    vector[i] = value
    norm += value * value
  }
  const scale = 1 / Math.sqrt(norm || 1)
  for (let i = 0; i < dims; i++) vector[i] = (vector[i] ?? 0) * scale
  return vector
}

function encode(vector: number[], format: 'float' | 'base64'): number[] | string {
  if (format === 'float') return vector
  return Buffer.from(new Float32Array(vector).buffer).toString('base64')
}
