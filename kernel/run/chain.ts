/**
 * Runs a route's steps over an Exchange: the request onion (koa-compose's idea, with its
 * contract checks), then, once the reply has ended however it ended, every entered step's
 * `finish`. Streamed replies are wrapped so that `chunk` sees each event and `finish` runs
 * when the stream ends, is cut, or is abandoned by the client.
 */
import type { Exchange } from '../contract/exchange.js'
import type { Outcome } from '../contract/plugin.js'
import type { LoadedRoute, LoadedStep } from './route.js'
import { SerializedEvent, type EventsReply, type StreamEvent, type StreamItem } from '../contract/reply.js'
import { GatewayError, toGatewayError } from '../contract/errors.js'
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

export async function runRequest(route: LoadedRoute, ex: Exchange, state: ChainState): Promise<void> {
  const steps = route.steps
  let last = -1
  // Not async: the step's own promise is handed back, one promise and one await fewer per step.
  const dispatch = (i: number): Promise<void> => {
    if (i <= last) return Promise.reject(new Error(`step ${steps[i - 1]?.name ?? '?'} called next() more than once`))
    last = i
    if (i === steps.length) return Promise.resolve()
    if (state.entered < i + 1) state.entered = i + 1
    const step = steps[i]!
    return step.phases.request ? step.phases.request(ex, () => dispatch(i + 1)) : dispatch(i + 1)
  }
  await dispatch(0)
  if (!ex.reply) throw new GatewayError(500, 'internal error', { cause: new Error(`route ${route.info.id} ended without a reply`) })
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

/** The outcome of an error: aborted when the client went away, else failed with its status. */
export function outcomeOf(ex: Exchange, err: unknown): Outcome {
  const error = toGatewayError(err)
  if (ex.signal.aborted && !(ex.signal.reason instanceof GatewayError)) return { kind: 'aborted', status: 499, error }
  return { kind: 'failed', status: error.status, error }
}

/** The chunk phases of the steps the request entered, in the order events pass them. */
export function enteredChunkSteps(route: LoadedRoute, state: ChainState): readonly LoadedStep[] {
  return route.chunkSteps.length === 0 ? route.chunkSteps : route.chunkSteps.filter((s) => s.index < state.entered)
}

/** One event through the chunk phases (parsed first, if it came serialized); null when a step dropped it. */
export function passChunk(steps: readonly LoadedStep[], ex: Exchange, original: StreamItem): StreamEvent | null {
  let event: StreamEvent | null = original instanceof SerializedEvent ? original.parse() : original
  for (const step of steps) {
    event = step.phases.chunk!(ex, event)
    if (event === null) return null
  }
  return event
}

/**
 * Wraps a streamed reply: chunk phases on each event, finish when it ends in any way. Used for
 * in-process calls; the HTTP writer applies the same two functions inline.
 */
export function wrapEvents(route: LoadedRoute, ex: Exchange, state: ChainState, reply: EventsReply): EventsReply & { events: AsyncIterable<StreamEvent> } {
  const source = reply.events
  const chunkSteps = enteredChunkSteps(route, state)
  async function* events(): AsyncGenerator<StreamEvent> {
    // If the consumer stops early (client gone), the generator is returned: aborted.
    let outcome: Outcome = { kind: 'aborted', status: 499 }
    try {
      for await (const original of source) {
        // In-process callers always get objects.
        const event = chunkSteps.length > 0 ? passChunk(chunkSteps, ex, original) : original instanceof SerializedEvent ? original.parse() : original
        if (event !== null) yield event
      }
      outcome = { kind: 'done', status: reply.status }
    } catch (err) {
      outcome = outcomeOf(ex, err)
      throw outcome.error
    } finally {
      await finishAll(route, ex, state, outcome)
    }
  }
  return { kind: 'events', status: reply.status, terminator: reply.terminator, named: reply.named, errorEvent: reply.errorEvent, events: events() }
}

/** Wraps streamed bytes (audio) so that `finish` runs when they end in any way. */
export function wrapBytes(route: LoadedRoute, ex: Exchange, state: ChainState, status: number, source: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  async function* bytes(): AsyncGenerator<Uint8Array> {
    let outcome: Outcome = { kind: 'aborted', status: 499 }
    try {
      yield* source
      outcome = { kind: 'done', status }
    } catch (err) {
      outcome = outcomeOf(ex, err)
      throw outcome.error
    } finally {
      await finishAll(route, ex, state, outcome)
    }
  }
  return bytes()
}
