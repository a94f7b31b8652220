/**
 * Answer labels: what the model is asked to reply with, one per possible answer, and how a
 * token the model produced is read back as an answer.
 *
 * Every label is a single token in the common tokenizers (GPT cl100k/o200k, Llama 2 and 3,
 * Mistral, Qwen 2/3, Gemma), so one generated token is the whole answer and the top-20
 * logprobs of that first token are a distribution over answers:
 *
 * - boolean: `No`, `Yes` — the words instruction-tuned models already use for yes/no questions.
 * - choice: `A` … `Z` — one capital letter per option (hence the spec's 26), as in
 *   multiple-choice exams, which models have seen by the million.
 * - score: the digits `1` … `N` for N ≤ 9 levels; with 10 levels `0` … `9` (0 the lowest).
 *   Single digits are single tokens everywhere (Llama 2, Mistral and Qwen split every number
 *   into digits), "10" is not, so a 10-level scale must start at 0.
 *
 * A tokenizer has several tokens for one label (`Yes`, ` Yes`, `yes`, ` YES`, SentencePiece
 * `▁Yes`); they are the same answer, so their probabilities are added. Only leading whitespace
 * and case are folded: `Yesterday` is not `Yes`.
 */

export type QuestionType = 'boolean' | 'choice' | 'score'

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'

/** The labels, in answer order, for a question with `count` answers. */
export function labelsFor(type: QuestionType, count: number): string[] {
  switch (type) {
    case 'boolean':
      // Answer order is false, true: the order of the spec's `probabilities` keys.
      return ['No', 'Yes']
    case 'choice':
      return LETTERS.slice(0, count).split('')
    case 'score': {
      const first = count <= 9 ? 1 : 0
      return Array.from({ length: count }, (_, i) => String(first + i))
    }
  }
}

/** Leading whitespace, and the space markers of byte-level BPE (Ġ) and SentencePiece (▁) vocabularies. */
const LEADING_SPACE = /^[\s\u0120\u2581]+/u

/** The folded form of a token or label: leading space removed, upper case. */
export function foldToken(token: string): string {
  return token.replace(LEADING_SPACE, '').toUpperCase()
}

/** Reads tokens as answers: folded label → answer index. */
export class LabelReader {
  private readonly index = new Map<string, number>()

  constructor(readonly labels: readonly string[]) {
    labels.forEach((label, i) => this.index.set(foldToken(label), i))
  }

  /** The answer a token stands for, or undefined when it is no label's variant. */
  answerOf(token: string): number | undefined {
    return this.index.get(foldToken(token))
  }
}
