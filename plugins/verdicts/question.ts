/** A verdict question as validated: what the prompt, the asking and the scoring read. */
import type { QuestionType } from './labels.js'

export interface Question {
  readonly id: string
  readonly type: QuestionType
  readonly instructions: string
  /**
   * The answers, in order, as the response names them: `false`, `true`; the option names;
   * or the level descriptions (a score's answers are named by their level number).
   */
  readonly answers: readonly string[]
  /** What each answer means, for the prompt (null: no description given). */
  readonly descriptions: ReadonlyArray<string | null>
  /** One label per answer (labels.ts). */
  readonly labels: readonly string[]
}
