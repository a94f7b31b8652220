/** Rejects with `message` when `work` has not settled within `ms` (readiness checks must answer). */
export function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms)
  })
  // The loser's rejection is ignored: it has nowhere to go once the race is decided.
  work.catch(() => undefined)
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}
