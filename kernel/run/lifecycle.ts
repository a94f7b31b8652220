/**
 * The one request lifecycle, as Koa has one `handleRequest` and one `respond`: HTTP, a WebSocket
 * message, an in-process call and the plugin harness all run an exchange through `runExchange`,
 * start to finish. The body is checked against the route's schema, the chain runs, no reply
 * leaves before what was recorded for it is safe from a crash (the records journal), the reply
 * goes to the transport's Wire (transports/wire.ts: only a transport writes a wire), a stream of
 * events passes the one chunk loop, and the entered steps' `finish` runs once, with how the
 * reply ended.
 */
import type { GatewayError } from '../contract/errors.js'
import { describeCause } from '../contract/log.js'
import { outcomeOf, type Outcome } from '../contract/plugin.js'
import { SerializedEvent, type EventsReply, type StreamItem } from '../contract/reply.js'
import type { KernelExchange } from './create-exchange.js'
import type { LoadedRoute } from './route.js'
import { finishAll, runRequest, type ChainState } from './chain.js'
import { checkBody } from '../transports/body.js'
import type { EventSink, WholeReply, Wire } from '../transports/wire.js'

/** What the lifecycle needs of its generation, made once. */
export interface RunOptions {
  readonly track?: ChainState['track']
  /** Resolves once the records written so far are safe from a crash; undefined when they are. */
  readonly durable?: () => Promise<void> | undefined
  /** Told of each request as it begins (an exporter of traces makes its trace context then). */
  readonly start?: (ex: KernelExchange) => void
}

const ABORTED: Outcome = { kind: 'aborted', status: 499 }

export async function runExchange(
  route: LoadedRoute,
  ex: KernelExchange,
  wire: Wire,
  options: RunOptions,
): Promise<void> {
  options.start?.(ex)
  const state: ChainState = { entered: 0, finished: false, track: options.track }
  // Undefined while streamed bytes own the end of the exchange.
  let outcome: Outcome | undefined = ABORTED
  try {
    try {
      const check = wire.body && route.body.kind === 'json' ? await readBody(route, ex, wire) : undefined
      await runRequest(route, ex, state, check)
      wire.accept?.(ex.reply!)
    } catch (err) {
      outcome = outcomeOf(ex, err)
      if (wire.boundary) logInternal(ex, outcome.error!, 'request failed')
      await options.durable?.()
      await wire.error(ex, outcome.error!)
      return
    }
    await options.durable?.()
    const reply = ex.reply!
    if (reply.kind === 'events')
      outcome = await streamEvents(route, ex, state, reply, wire.events(ex, reply), wire.boundary)
    else if (reply.kind === 'bytes' && !(reply.data instanceof Uint8Array)) {
      outcome = undefined
      await wire.bytes(ex, reply, finishing(route, ex, state, wire, reply.status, reply.data))
    } else
      outcome = (await wire.whole(ex, reply as WholeReply)) === false ? ABORTED : { kind: 'done', status: reply.status }
  } catch (err) {
    // The transport could not write the reply (a header Node refuses): the boundary above it answers.
    outcome = outcomeOf(ex, err)
    throw err
  } finally {
    if (outcome) await endExchange(route, ex, state, wire, outcome)
  }
}

/**
 * A JSON body is read and parsed before the chain, for an authenticating step that reads it (a
 * project id); what is wrong with it (unreadable, too large, not JSON, against the route's
 * schema) is answered by the check the chain runs once the route's authentication let the
 * request through (route.bodyAt): a request without a key meets 401 before any 400.
 */
async function readBody(route: LoadedRoute, ex: KernelExchange, wire: Wire): Promise<(() => void) | undefined> {
  const mode = route.body
  if (!wire.body || mode.kind !== 'json') return undefined
  let parsed: unknown
  let failure: unknown
  try {
    parsed = await wire.body()
  } catch (err) {
    failure = err
  }
  ex.body = parsed
  return () => {
    if (failure !== undefined) throw failure
    ex.body = checkBody(mode, parsed)
  }
}

async function endExchange(
  route: LoadedRoute,
  ex: KernelExchange,
  state: ChainState,
  wire: Wire,
  outcome: Outcome,
): Promise<void> {
  ex.settle()
  await finishAll(route, ex, state, outcome)
  wire.ended?.(outcome, state.finishErrors)
}

function logInternal(ex: KernelExchange, error: GatewayError, what: string): void {
  if (error.code === 'internal') ex.log.error(what, { cause: describeCause(error.cause ?? error) })
}

/**
 * The one chunk loop: each event through the chunk phases of the steps the request entered,
 * last step first (parsed only for them), then to the sink; a failure goes to the sink too.
 */
async function streamEvents(
  route: LoadedRoute,
  ex: KernelExchange,
  state: ChainState,
  reply: EventsReply,
  sink: EventSink,
  boundary: boolean,
): Promise<Outcome> {
  const steps =
    route.chunkSteps.length === 0 ? route.chunkSteps : route.chunkSteps.filter((s) => s.index < state.entered)
  const it = reply.events[Symbol.asyncIterator]()
  let outcome = ABORTED
  try {
    for (;;) {
      const ready = sink.ready()
      if (ready === false || (ready !== true && !(await ready))) break
      const { value, done } = await it.next()
      if (done) {
        outcome = { kind: 'done', status: reply.status }
        sink.end()
        break
      }
      let event: StreamItem | null = value
      if (steps.length > 0) {
        event = value instanceof SerializedEvent ? value.parse() : value
        for (let i = 0; i < steps.length && event !== null; i++) event = steps[i]!.phases.chunk!(ex, event)
      }
      if (event !== null) sink.send(event)
    }
  } catch (err) {
    outcome = outcomeOf(ex, err)
    // A reader that went away is not a failure of the stream.
    if (boundary && outcome.kind !== 'aborted') logInternal(ex, outcome.error!, 'stream failed')
    sink.fail(outcome)
  } finally {
    // The reader gone: stop the source (which aborts the upstream request).
    if (outcome.kind === 'aborted') await it.return?.()
  }
  return outcome
}

/** Streamed bytes that end the exchange when they end: done, cut, or abandoned by the reader. */
async function* finishing(
  route: LoadedRoute,
  ex: KernelExchange,
  state: ChainState,
  wire: Wire,
  status: number,
  source: AsyncIterable<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  let outcome = ABORTED
  try {
    yield* source
    outcome = { kind: 'done', status }
  } catch (err) {
    outcome = outcomeOf(ex, err)
    throw outcome.error
  } finally {
    await endExchange(route, ex, state, wire, outcome)
  }
}
