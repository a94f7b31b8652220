/**
 * Reply text: preset sentences strung together, as llm-d-inference-sim's `random` mode does.
 * The sentences say plainly that a simulator wrote them, so nobody mistakes a reply for a model's.
 */
import type { SeededRandom } from './seeded-random.js'

const answerSentences = [
  'This reply comes from the Sluice model-server simulator.',
  'No model ran to write it; the words are picked from a short list.',
  'The simulator counts tokens, keeps time and reports usage like a real server.',
  'Today is a nice sunny day.',
  'The temperature here is twenty-five degrees centigrade.',
  'Give a man a fish and you feed him for a day.',
  'To be or not to be, that is the question.',
  'I am a simulated assistant, how can I help you today?',
  'Testing, testing, one, two, three.',
  'Every answer is deterministic for the same prompt.',
]

const thinkingSentences = [
  'Let me think about what is being asked.',
  'The user wants a short and clear answer.',
  'I should check the facts before I reply.',
  'A simulator is doing this thinking, one preset sentence at a time.',
  'Let me consider the options in turn.',
  'That seems right, so I will write the answer now.',
]

/** llm-d's response-length histogram: five equal buckets below the maximum, then the maximum itself. */
const bucketWeights = [0.2, 0.3, 0.2, 0.05, 0.1]
const maxTokensWeight = 0.15

/** How many tokens a reply gets: llm-d's histogram over [1, max], or Gaussian 40 ± 20 without a max. */
export function responseLength(random: SeededRandom, maxTokens: number | undefined): number {
  if (maxTokens === undefined) return Math.max(1, Math.round(random.gaussian(40, 20)))
  if (maxTokens <= 1) return 1
  let draw = random.next()
  if (draw < maxTokensWeight) return maxTokens
  draw -= maxTokensWeight
  // Below the maximum: [1, max − 1] split into five buckets of (nearly) equal width.
  const span = maxTokens - 1
  for (let bucket = 0; bucket < bucketWeights.length; bucket++) {
    const weight = bucketWeights[bucket] ?? 0
    if (draw < weight || bucket === bucketWeights.length - 1) {
      const low = 1 + Math.floor((bucket * span) / bucketWeights.length)
      const high = Math.max(low, Math.floor(((bucket + 1) * span) / bucketWeights.length))
      return random.int(low, Math.min(high, span))
    }
    draw -= weight
  }
  return span
}

/** `count` word tokens; the first has no leading space, every other one does. */
export function answerWords(random: SeededRandom, count: number): string[] {
  return wordsFrom(answerSentences, random, count)
}

export function thinkingWords(random: SeededRandom, count: number): string[] {
  return wordsFrom(thinkingSentences, random, count)
}

function wordsFrom(sentences: readonly string[], random: SeededRandom, count: number): string[] {
  const words: string[] = []
  while (words.length < count) {
    for (const word of random.pick(sentences).split(' ')) {
      if (words.length === count) break
      words.push(words.length === 0 ? word : ` ${word}`)
    }
  }
  return words
}

/** A few words for string values of generated JSON. */
export function shortPhrase(random: SeededRandom, words: number): string {
  return answerWords(random, words)
    .join('')
    .replace(/[.,?!;]/g, '')
}
