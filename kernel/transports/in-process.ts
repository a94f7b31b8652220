/**
 * The in-process transport (kernel.call, the plugin harness): the reply comes back as a value.
 * A whole reply or an error is handed over once the exchange is over (its finish phases have
 * run), as a caller awaiting kernel.call expects. A stream is handed over at once: its events
 * as an iterable that the kernel's chunk loop feeds as the caller pulls (the loop reads the next
 * event only when asked), whose last step (the end, the error, or leaving early) returns once
 * the finish phases have run; its bytes as an iterable that ends the exchange as it ends.
 */
import type { CallOptions, CallResult, Deployment } from '../contract/kernel.js'
import type { Logger } from '../contract/log.js'
import type { Outcome } from '../contract/plugin.js'
import {
  SerializedEvent,
  type BytesReply,
  type EventsReply,
  type Reply,
  type StreamEvent,
  type StreamItem,
} from '../contract/reply.js'
import { GatewayError } from '../contract/errors.js'
import { createExchange, type KernelExchange } from '../run/create-exchange.js'
import type { ChainState } from '../run/chain.js'
import { runExchange, type RunOptions } from '../run/lifecycle.js'
import type { LoadedRoute } from '../run/route.js'
import { checkBody } from './body.js'
import type { EventSink, WholeReply, Wire } from './wire.js'

/** In-process readers always get events as objects. */
export type InProcessReply = Exclude<Reply, EventsReply> | (EventsReply & { events: AsyncIterable<StreamEvent> })

export type InProcessResult = CallResult & { readonly reply: InProcessReply }

/** What `kernel.call` needs of its generation (run/generation.ts). */
interface Caller {
  readonly routes: ReadonlyMap<string, LoadedRoute>
  readonly config: Deployment
  readonly log: Logger
  readonly callOptions: RunOptions
  now(): number
  enter(): () => void
}

/** `kernel.call`: the route run in-process, its body checked as a client's would be. */
export async function callRoute(
  gen: Caller,
  routeId: string,
  body: unknown,
  options: CallOptions,
): Promise<CallResult> {
  const route = gen.routes.get(routeId)
  if (!route) throw new GatewayError(500, 'internal error', { cause: new Error(`kernel.call: no route ${routeId}`) })
  if (route.body.kind === 'json') checkBody(route.body, body)
  const ex = createExchange({
    route: route.info,
    transport: 'internal',
    parentId: options.parentId,
    method: route.method ?? 'POST',
    path: route.path ?? `internal:${routeId}`,
    headers: options.headers,
    body,
    principal: options.principal,
    headerPrefix: gen.config.server.header_prefix,
    timeoutMs: Math.max(1, gen.config.server.limits.request_timeout_ms ?? 3_600_000),
    parentSignal: options.signal,
    log: options.parentId ? gen.log.child({ parent: options.parentId }) : gen.log,
    now: gen.now(),
    demand: route.demand,
  })
  const call = new InProcessCall(ex, false, gen.enter())
  void runExchange(route, ex, call, gen.callOptions).catch(call.failed)
  return call.result
}

export class InProcessCall implements Wire {
  readonly boundary = false
  readonly result: Promise<InProcessResult>
  /** What the finish phases threw (the harness fails a test on them). */
  finishErrors: ChainState['finishErrors']
  private resolve!: (result: InProcessResult) => void
  private reject!: (err: unknown) => void
  private kept?: WholeReply
  private stream?: PulledEvents

  /** `seal`: response headers refuse changes once the reply is handed over, as over HTTP (the harness). */
  constructor(
    private readonly ex: KernelExchange,
    private readonly seal: boolean,
    private readonly onEnd?: () => void,
  ) {
    this.result = new Promise<InProcessResult>((resolve, reject) => {
      this.resolve = resolve
      this.reject = reject
    })
  }

  error(): undefined {
    return undefined
  }

  whole(ex: KernelExchange, reply: WholeReply): undefined {
    if (this.seal) ex.sealHeaders()
    this.kept = reply
    return undefined
  }

  events(_ex: KernelExchange, reply: EventsReply): EventSink {
    this.stream = new PulledEvents()
    this.handOver({ ...reply, events: this.stream })
    return this.stream
  }

  bytes(_ex: KernelExchange, reply: BytesReply, data: AsyncIterable<Uint8Array>): undefined {
    this.handOver({ ...reply, data })
    return undefined
  }

  /** A whole reply or an error is handed over now (a stream was already: settling again changes nothing). */
  ended(outcome: Outcome, finishErrors: ChainState['finishErrors']): void {
    this.finishErrors = finishErrors
    this.onEnd?.()
    this.stream?.over()
    if (this.kept && outcome.kind === 'done') this.resolve(this.resultOf(this.kept))
    else this.reject(outcome.error)
  }

  /** The lifecycle itself failed (a bug): the caller hears of it rather than waiting forever. */
  readonly failed = (err: unknown): void => this.reject(err)

  private handOver(reply: InProcessReply): void {
    if (this.seal) this.ex.sealHeaders()
    this.resolve(this.resultOf(reply))
  }

  private resultOf(reply: InProcessReply): InProcessResult {
    return { reply, headers: this.ex.headers, usage: this.ex.usage }
  }
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined }

/** A stream's events for a reader that pulls them; the chunk loop is the writer. */
class PulledEvents implements AsyncIterableIterator<StreamEvent>, EventSink {
  private reader?: { resolve(result: IteratorResult<StreamEvent>): void; reject(err: unknown): void }
  private wake?: (more: boolean) => void
  private left = false
  private failure?: GatewayError
  private finished = false
  private readonly leaving: (() => void)[] = []

  next(): Promise<IteratorResult<StreamEvent>> {
    if (this.finished) return this.failure ? Promise.reject(this.takeFailure()) : Promise.resolve(DONE)
    return new Promise((resolve, reject) => {
      this.reader = { resolve, reject }
      this.wake?.(true)
    })
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  /** The reader leaves early: the loop stops (aborted), and this returns once the exchange is over. */
  return(): Promise<IteratorResult<StreamEvent>> {
    this.left = true
    this.wake?.(false)
    if (this.finished) return Promise.resolve(DONE)
    return new Promise((resolve) => this.leaving.push(() => resolve(DONE)))
  }

  ready(): boolean | Promise<boolean> {
    if (this.left) return false
    if (this.reader) return true
    return new Promise((resolve) => {
      this.wake = (more) => {
        this.wake = undefined
        resolve(more)
      }
    })
  }

  send(event: StreamItem): void {
    const reader = this.reader!
    this.reader = undefined
    reader.resolve({ value: event instanceof SerializedEvent ? event.parse() : event, done: false })
  }

  end(): void {}

  fail(outcome: Outcome): void {
    this.failure = outcome.error
  }

  /** The exchange is over: the reader's pending step ends (done, or the stream's error). */
  over(): void {
    this.finished = true
    const reader = this.reader
    this.reader = undefined
    if (reader) {
      if (this.failure) reader.reject(this.takeFailure())
      else reader.resolve(DONE)
    }
    for (const resolve of this.leaving) resolve()
  }

  private takeFailure(): GatewayError {
    const failure = this.failure!
    this.failure = undefined
    return failure
  }
}
