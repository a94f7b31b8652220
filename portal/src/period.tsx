/**
 * The period the Usage and Requests views show, kept in this module so that it survives a
 * switch of tabs (both views read and change the same one). Default: the last hour.
 */
import { useEffect, useState } from 'preact/hooks'
import { when } from './format.js'

export const PERIODS = [
  { id: 'hour', label: 'Last hour', ms: 3_600_000 },
  { id: 'day', label: 'Last 24 hours', ms: 86_400_000 },
  { id: 'week', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { id: 'month', label: 'Last 30 days', ms: 30 * 86_400_000 },
] as const

export type PeriodId = (typeof PERIODS)[number]['id'] | 'custom'

export interface PeriodState {
  period: PeriodId
  /** datetime-local values (the browser's time zone), for a custom period. */
  custom: { from: string; to: string }
  /** The moment a preset period ends: set when it is chosen or refreshed. */
  now: number
}

/** A time as a datetime-local field writes it (local time, to the minute). */
export function localInput(t: number): string {
  const d = new Date(t - new Date(t).getTimezoneOffset() * 60_000)
  return d.toISOString().slice(0, 16)
}

const start = Date.now()
let state: PeriodState = {
  period: 'hour',
  custom: { from: localInput(start - 86_400_000), to: localInput(start) },
  now: start,
}
const listeners = new Set<(s: PeriodState) => void>()

function update(change: Partial<PeriodState>): void {
  state = { ...state, ...change }
  for (const l of listeners) l(state)
}

/**
 * The shared period, its bounds (epoch ms) and a way to change it. A view opened with a preset
 * period (`refresh`) moves its end to now, so that it includes the requests made meanwhile.
 */
export function usePeriod(refresh = false): { state: PeriodState; from: number; to: number; update: typeof update } {
  const [s, setS] = useState(() => (refresh && state.period !== 'custom' ? { ...state, now: Date.now() } : state))
  useEffect(() => {
    listeners.add(setS)
    if (refresh && s !== state) update({ now: s.now })
    else setS(state)
    return () => void listeners.delete(setS)
  }, [])
  const preset = PERIODS.find((p) => p.id === s.period)
  const from = preset ? s.now - preset.ms : Date.parse(s.custom.from)
  const to = preset ? s.now : Date.parse(s.custom.to)
  return { state: s, from, to, update }
}

/** The period's fields: a preset or custom (from, to); ids prefixed by `prefix`. */
export function PeriodFields({ prefix }: { prefix: string }) {
  const { state: s, update: set } = usePeriod()
  return (
    <>
      <span class="field">
        <label for={`${prefix}-period`}>Period</label>
        <select
          id={`${prefix}-period`}
          value={s.period}
          onChange={(e) => set({ period: (e.currentTarget as HTMLSelectElement).value as PeriodId, now: Date.now() })}
        >
          {PERIODS.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
          <option value="custom">Custom…</option>
        </select>
      </span>
      {s.period === 'custom' && (
        <>
          <label for={`${prefix}-from`}>From</label>
          <input
            id={`${prefix}-from`}
            type="datetime-local"
            required
            value={s.custom.from}
            onChange={(e) => set({ custom: { ...s.custom, from: (e.currentTarget as HTMLInputElement).value } })}
          />
          <label for={`${prefix}-to`}>To</label>
          <input
            id={`${prefix}-to`}
            type="datetime-local"
            required
            value={s.custom.to}
            onChange={(e) => set({ custom: { ...s.custom, to: (e.currentTarget as HTMLInputElement).value } })}
          />
        </>
      )}
    </>
  )
}

/** "from … to …" of the period, as a hint line. */
export function periodText(from: number, to: number): string {
  if (!Number.isFinite(from) || !Number.isFinite(to)) return 'Choose both ends of the period.'
  return `${when(new Date(from).toISOString())} to ${when(new Date(to).toISOString())}`
}
