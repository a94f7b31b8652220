/**
 * The indicative value of what a request used, from its model's prices (models.yaml): budgets,
 * records and reports all use this one rule, so they agree. No charge is made.
 */
import type { Used } from './usage.js'

/** A model's prices (models.yaml `prices`): indicative only, no charge is made. */
export interface Prices {
  /** Per million input tokens. */
  readonly prompt?: number
  /** Per million output tokens. */
  readonly completion?: number
  /** Per million input characters (speech). */
  readonly characters?: number
  /** Per minute of audio (transcription, translation). */
  readonly audio_minute?: number
}

/** Prices per unit: what one token, character or second is worth. */
export interface UnitPrices {
  readonly input: number
  readonly output: number
  readonly character: number
  readonly second: number
}

export function unitPrices(prices: Prices | undefined): UnitPrices {
  return {
    input: (prices?.prompt ?? 0) / 1e6,
    output: (prices?.completion ?? 0) / 1e6,
    character: (prices?.characters ?? 0) / 1e6,
    second: (prices?.audio_minute ?? 0) / 60,
  }
}

/** The indicative value of what was used: budgets, records and reports all use this one rule. */
export function valueOf(prices: Prices | undefined, used: Omit<Used, 'source' | 'cachedTokens'>): number {
  const p = unitPrices(prices)
  return (
    used.inputTokens * p.input +
    used.outputTokens * p.output +
    used.characters * p.character +
    used.audioSeconds * p.second
  )
}
