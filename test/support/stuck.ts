/**
 * A guard against a hang, never a measure: tests do not assert how long something took (a
 * loaded machine makes any such bound flaky). `failIfStuck` gives the work's value, or fails
 * naming what is stuck once a deadline far past any normal wait has gone by.
 */
export async function failIfStuck<T>(work: Promise<T>, what: string, ms = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`stuck: ${what} (still waiting after ${ms / 1000} s)`)), ms)
  })
  try {
    return await Promise.race([work, stuck])
  } finally {
    clearTimeout(timer)
  }
}

/** Polls `check` until it holds; fails naming `what` when it still does not after the deadline. */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`stuck: waited for ${what} for ${ms / 1000} s`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
