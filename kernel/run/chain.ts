/**
 * Runs a route's steps over an Exchange: the request onion (koa-compose's idea, with its
 * contract checks), then, once the reply has ended however it ended, every entered step's
 * `finish`. The lifecycle (lifecycle.ts) calls both, and passes a stream's events through `chunk`.
 */
import type { Exchange } from '../contract/exchange.js'
import type { Outcome } from '../contract/plugin.js'
import type { LoadedRoute } from './route.js'
import { GatewayError } from '../contract/errors.js'
import { describeCause } from '../contract/log.js'

/** Per-request bookkeeping the kernel keeps beside the Exchange. */
export interface ChainState {
  /** How many steps (from the first) the request reached. */
  entered: number
  finished: boolean
  /** What `finish` phases threw: logged by the kernel, failed on by the harness. */
  finishErrors?: { step: string; error: unknown }[]
  /** Told of the request's end and its finish phases while they run (metrics; a shutdown waits for records). */
  track?: (finishing: Promise<void>, ex: Exchange, outcome: Outcome) => void
}

/**
 * `checkBody`, when given, runs once before step `route.bodyAt`: the request's JSON body is
 * checked only once the route's authenticating steps have let it through (401 before 400).
 */
export async function runRequest(
  route: LoadedRoute,
  ex: Exchange,
  state: ChainState,
  checkBody?: () => void,
): Promise<void> {
  const steps = route.steps
  const bodyAt = checkBody ? Math.min(route.bodyAt ?? 0, steps.length) : -1
  let last = -1
  // Not async: the step's own promise is handed back, one promise and one await fewer per step.
  const dispatch = (i: number): Promise<void> => {
    if (i <= last) return Promise.reject(new Error(`step ${steps[i - 1]?.name ?? '?'} called next() more than once`))
    last = i
    if (i === bodyAt) {
      try {
        checkBody!()
      } catch (err) {
        return Promise.reject(err)
      }
    }
    return enter(i)
  }
  const enter = (i: number): Promise<void> => {
    if (i === steps.length) return Promise.resolve()
    if (state.entered < i + 1) state.entered = i + 1
    const step = steps[i]!
    return step.phases.request ? step.phases.request(ex, () => dispatch(i + 1)) : dispatch(i + 1)
  }
  await dispatch(0)
  if (!ex.reply)
    throw new GatewayError(500, 'internal error', { cause: new Error(`route ${route.info.id} ended without a reply`) })
}

/** Calls `finish` of every entered step, innermost first, once. Errors are logged, never thrown. */
export function finishAll(route: LoadedRoute, ex: Exchange, state: ChainState, outcome: Outcome): Promise<void> {
  if (state.finished) return Promise.resolve()
  state.finished = true
  const finishing = runFinish(route, ex, state, outcome)
  state.track?.(finishing, ex, outcome)
  return finishing
}

async function runFinish(route: LoadedRoute, ex: Exchange, state: ChainState, outcome: Outcome): Promise<void> {
  for (let i = state.entered - 1; i >= 0; i--) {
    const step = route.steps[i]!
    if (!step.phases.finish) continue
    try {
      await step.phases.finish(ex, outcome)
    } catch (err) {
      ex.log.error('finish phase failed', { step: step.name, cause: describeCause(err) })
      ;(state.finishErrors ??= []).push({ step: step.name, error: err })
    }
  }
}
