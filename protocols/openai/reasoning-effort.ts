/**
 * The four reasoning levels and their synonyms, shared by whatever reads `reasoning_effort`
 * (choosing a family member, mapping the level onto a model server).
 */
import { GatewayError } from '../../kernel/contract/index.js'
import type { ReasoningLevel } from '../../schemas/models.schema.js'

export const LEVELS: readonly ReasoningLevel[] = ['none', 'low', 'medium', 'high']

const SYNONYMS: Record<string, ReasoningLevel> = {
  none: 'none',
  off: 'none',
  low: 'low',
  minimal: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'high',
  max: 'high',
}

/** The level asked for, or undefined when omitted; 400 for anything else. */
export function parseEffort(value: unknown): ReasoningLevel | undefined {
  if (value === undefined || value === null) return undefined
  // Own keys only: `constructor` or `toString` is no level.
  const level = typeof value === 'string' && Object.hasOwn(SYNONYMS, value) ? SYNONYMS[value] : undefined
  if (!level)
    throw new GatewayError(
      400,
      `reasoning effort ${typeof value === 'string' ? value : JSON.stringify(value)} is not one of none, low, medium or high`,
      { code: 'invalid_request' },
    )
  return level
}

/** The level nearest to `wanted` among `available` (ties go to the lower level). */
export function nearestLevel(wanted: ReasoningLevel, available: readonly ReasoningLevel[]): ReasoningLevel {
  const w = LEVELS.indexOf(wanted)
  let best = available[0]!
  for (const l of available) {
    const d = Math.abs(LEVELS.indexOf(l) - w)
    const bd = Math.abs(LEVELS.indexOf(best) - w)
    if (d < bd || (d === bd && LEVELS.indexOf(l) < LEVELS.indexOf(best))) best = l
  }
  return best
}
