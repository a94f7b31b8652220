/**
 * An embeddings server's reading of `POST /v1/embeddings` and `POST /tokenize` bodies, with
 * vLLM's refusals where vLLM has one, so the gateway's adapter sees what a real server would
 * say. The embedded embedder's wire (kernel/services/embedder/server.ts).
 */

/** An error the embedder answers with its status, in vLLM's error shape. */
export class EmbedderError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message)
    this.name = 'EmbedderError'
  }
}

/** Inputs per request: the same bound as OpenAI's and the gateway's. */
export const MAX_INPUTS = 2048
/** Tokens per input. USE lite has no fixed window; this bounds the work one text can ask for. */
export const MAX_TOKENS = 1024

export interface EmbeddingsRequest {
  model: string
  texts: string[]
  format: 'float' | 'base64'
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new EmbedderError(400, 'the body must be a JSON object')
  return body as Record<string, unknown>
}

function modelOf(json: Record<string, unknown>, served: string): string {
  const model = json.model ?? served
  if (typeof model !== 'string') throw new EmbedderError(400, 'model: Input should be a valid string', 'model')
  if (model !== served) throw new EmbedderError(404, `The model \`${model}\` does not exist.`, 'model')
  return model
}

/** `dimensions`: the model's one output size (it has no Matryoshka representation). */
export function readEmbeddingsRequest(body: unknown, served: string, dimensions: number): EmbeddingsRequest {
  const json = objectBody(body)
  const model = modelOf(json, served)
  const format = json.encoding_format ?? 'float'
  if (format !== 'float' && format !== 'base64')
    throw new EmbedderError(400, "encoding_format: Input should be 'float' or 'base64'", 'encoding_format')
  // vLLM's refusal for a model without a Matryoshka representation; its own size is no change.
  if (json.dimensions !== undefined && json.dimensions !== null && json.dimensions !== dimensions) {
    throw new EmbedderError(
      400,
      `Model "${served}" does not support matryoshka representation, changing output dimensions will lead to poor results.`,
      'dimensions',
    )
  }
  const input = json.input
  const texts = typeof input === 'string' ? [input] : input
  if (!Array.isArray(texts) || texts.length === 0)
    throw new EmbedderError(400, 'input: Input should be a string or a non-empty list of strings', 'input')
  if (!texts.every((t): t is string => typeof t === 'string')) {
    // The encoder reads text through its own tokenizer; it has no token-id input.
    throw new EmbedderError(400, `input: token ids are not accepted; model "${served}" takes text only`, 'input')
  }
  if (texts.length > MAX_INPUTS)
    throw new EmbedderError(400, `input: at most ${MAX_INPUTS} inputs per request; ${texts.length} were sent`, 'input')
  return { model, texts, format }
}

export function readTokenizeRequest(body: unknown, served: string): string {
  const json = objectBody(body)
  modelOf(json, served)
  if (typeof json.prompt !== 'string') throw new EmbedderError(400, 'prompt: Input should be a valid string', 'prompt')
  return json.prompt
}
