/** One entry of the response's `verdicts`, shaped per question type (spec: "Verdicts response"). */
import type { Scored } from './scoring.js'
import { expectedLevel } from './scoring.js'
import type { Question } from './question.js'

export type Verdict =
  | { type: 'boolean'; value: boolean; probabilities: { false: number; true: number }; confidence: number }
  | { type: 'choice'; value: string; probabilities: Record<string, number>; confidence: number }
  | { type: 'score'; value: number; probabilities: number[]; confidence: number; expected_value: number }

export function verdictOf(q: Question, s: Scored): Verdict {
  const p = s.probabilities
  switch (q.type) {
    case 'boolean':
      return {
        type: 'boolean',
        value: s.best === 1,
        probabilities: { false: p[0]!, true: p[1]! },
        confidence: s.confidence,
      }
    case 'choice': {
      // No prototype: an option may be called `__proto__`.
      const probabilities: Record<string, number> = Object.create(null) as Record<string, number>
      q.answers.forEach((name, i) => (probabilities[name] = p[i]!))
      return { type: 'choice', value: q.answers[s.best]!, probabilities, confidence: s.confidence }
    }
    case 'score':
      return {
        type: 'score',
        value: s.best + 1,
        probabilities: [...p],
        confidence: s.confidence,
        expected_value: expectedLevel(p),
      }
  }
}
