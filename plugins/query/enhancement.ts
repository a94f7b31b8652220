/**
 * Prompt enhancement (spec 001 `enhance_prompt`): the current date and time in the caller's
 * IANA time zone, and how long an answer should be. The zone is checked against the zones the
 * runtime's ICU knows (IANA's database): an unknown one is a 400 naming it.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import type { EnhancePrompt } from '../../schemas/query-request.schema.js'

const VERBOSITY: Record<string, string> = {
  brief: 'Keep the answer brief: two or three sentences at most.',
  normal: '',
  detailed: 'Give a detailed, thorough answer, with the reasoning and the relevant particulars.',
}

/** Throws 400 unless `zone` is an IANA time zone. */
export function checkTimeZone(zone: string): void {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone })
  } catch {
    throw new GatewayError(
      400,
      `enhance_prompt.timezone ${zone} is not an IANA time zone (e.g. Europe/Paris, America/New_York, UTC)`,
      { code: 'invalid_request' },
    )
  }
}

/** The lines enhancement adds to the system prompt (none when nothing is asked). */
export function enhancementLines(e: EnhancePrompt, now: number): string[] {
  const zone = e.timezone ?? 'UTC'
  if (e.timezone !== undefined) checkTimeZone(zone)
  const lines: string[] = []
  const at = new Date(now)
  if (e.date)
    lines.push(
      `Current date: ${new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' }).format(at)} (${zone}).`,
    )
  if (e.time)
    lines.push(
      `Current time: ${new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hour12: false }).format(at)} (${zone}).`,
    )
  const verbosity = VERBOSITY[e.verbosity ?? 'normal']
  if (verbosity) lines.push(verbosity)
  return lines
}
