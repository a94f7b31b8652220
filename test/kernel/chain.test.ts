/**
 * The kernel's chain, without a server: the request onion, the order of `finish`, what a
 * step that answers early leaves unentered, aborts and failures of a stream, and the rule
 * that a header cannot change once the reply's headers have left.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { finishAll, runRequest, type ChainState } from '../../kernel/run/chain.js'
import { outcomeOf } from '../../kernel/contract/plugin.js'
import { runExchange } from '../../kernel/run/lifecycle.js'
import { InProcessCall } from '../../kernel/transports/in-process.js'
import { createExchange, type KernelExchange } from '../../kernel/run/create-exchange.js'
import { createLogger } from '../../kernel/contract/log.js'
import { reply, type StreamEvent } from '../../kernel/contract/reply.js'
import { errorStyle } from '../../kernel/transports/error-styles.js'
import { GatewayError } from '../../kernel/contract/errors.js'
import type { Outcome, Phases } from '../../kernel/contract/plugin.js'
import type { LoadedRoute } from '../../kernel/run/route.js'

const test = suite('kernel: the chain (onion, finish, aborts)')

const quiet = createLogger({ level: 'error', sink: { write: () => undefined } })

function route(steps: [string, Phases][]): LoadedRoute {
  const loaded = steps.map(([name, phases], index) => ({ name, index, phases }))
  return {
    info: { id: 'r', pipeline: 'p', file: 'p.yaml' },
    internal: false,
    body: { kind: 'none' },
    errors: errorStyle('openai'),
    steps: loaded,
    chunkSteps: loaded.filter((s) => s.phases.chunk).reverse(),
  }
}

function exchange(): KernelExchange {
  return createExchange({
    route: { id: 'r', pipeline: 'p', file: 'p.yaml' },
    transport: 'internal',
    method: 'POST',
    path: '/r',
    headerPrefix: 'x-gateway-',
    timeoutMs: 60_000,
    log: quiet,
  })
}

/** The route run as an in-process call (the lifecycle's chunk loop and its finish); the events of its streamed reply. */
async function streamed(r: LoadedRoute, ex: KernelExchange): Promise<{ events: AsyncIterable<StreamEvent> }> {
  const call = new InProcessCall(ex, false)
  void runExchange(r, ex, call, {}).catch(call.failed)
  const { reply } = await call.result
  if (reply.kind !== 'events') throw new Error(`expected a stream, got ${reply.kind}`)
  return reply
}

/** A step that records its phases in `log` and passes on. */
function recorder(name: string, log: string[]): Phases {
  return {
    async request(_ex, next) {
      log.push(`${name}:in`)
      await next()
      log.push(`${name}:out`)
    },
    async finish(_ex, outcome) {
      log.push(`${name}:finish:${outcome.kind}`)
    },
  }
}

async function* events(n: number, failAt?: number): AsyncGenerator<StreamEvent> {
  for (let i = 0; i < n; i++) {
    if (i === failAt) throw new GatewayError(502, 'upstream cut the stream')
    yield { i }
  }
}

test('the onion: in, in, answer, out, out; finish innermost first, once', async () => {
  const log: string[] = []
  const r = route([
    ['a', recorder('a', log)],
    ['b', recorder('b', log)],
    [
      'answer',
      {
        async request(ex) {
          log.push('answer')
          ex.reply = reply.json({ ok: true })
        },
      },
    ],
  ])
  const ex = exchange()
  const state: ChainState = { entered: 0, finished: false }
  await runRequest(r, ex, state)
  await finishAll(r, ex, state, { kind: 'done', status: 200 })
  await finishAll(r, ex, state, { kind: 'done', status: 200 })
  assert.equal(log, ['a:in', 'b:in', 'answer', 'b:out', 'a:out', 'b:finish:done', 'a:finish:done'])
})

test('a step that answers without next: later steps are not entered and get no finish', async () => {
  const log: string[] = []
  const r = route([
    ['a', recorder('a', log)],
    [
      'cache',
      {
        async request(ex) {
          ex.reply = reply.json({ cached: true })
        },
        finish: () => void log.push('cache:finish'),
      },
    ],
    ['c', recorder('c', log)],
  ])
  const ex = exchange()
  const state: ChainState = { entered: 0, finished: false }
  await runRequest(r, ex, state)
  await finishAll(r, ex, state, { kind: 'done', status: 200 })
  assert.is(state.entered, 2)
  assert.equal(log, ['a:in', 'a:out', 'cache:finish', 'a:finish:done'])
})

test('an error thrown inside: outer steps see it after next, finish gets failed with its status', async () => {
  const log: string[] = []
  let seen: unknown
  const r = route([
    [
      'a',
      {
        async request(_ex, next) {
          try {
            await next()
          } catch (err) {
            seen = err
            throw err
          }
        },
        finish: (_ex, o) => void log.push(`a:${o.kind}:${o.status}`),
      },
    ],
    [
      'boom',
      {
        async request() {
          throw new GatewayError(429, 'token budget exceeded')
        },
      },
    ],
  ])
  const ex = exchange()
  const state: ChainState = { entered: 0, finished: false }
  let thrown: unknown
  try {
    await runRequest(r, ex, state)
  } catch (err) {
    thrown = err
    await finishAll(r, ex, state, outcomeOf(ex, err))
  }
  assert.instance(thrown, GatewayError)
  assert.is(seen, thrown)
  assert.equal(log, ['a:failed:429'])
})

test('next() called twice is a contract error, not a second run of the rest', async () => {
  let runs = 0
  const r = route([
    [
      'twice',
      {
        async request(_ex, next) {
          await next()
          await next()
        },
      },
    ],
    [
      'answer',
      {
        async request(ex) {
          runs++
          ex.reply = reply.json({})
        },
      },
    ],
  ])
  try {
    await runRequest(r, exchange(), { entered: 0, finished: false })
    assert.unreachable('next() twice was accepted')
  } catch (err) {
    assert.match((err as Error).message, 'called next() more than once')
  }
  assert.is(runs, 1)
})

test('a route whose steps set no reply fails with a 500 that leaks nothing', async () => {
  try {
    await runRequest(route([['nothing', { async request() {} }]]), exchange(), { entered: 0, finished: false })
    assert.unreachable()
  } catch (err) {
    assert.is((err as GatewayError).status, 500)
    assert.is((err as GatewayError).message, 'internal error')
  }
})

test('a stream: chunk sees every event in order; finish runs when it ends (done), after the last event', async () => {
  const log: string[] = []
  const r = route([
    [
      'a',
      {
        chunk: (_ex, e) => (log.push(`chunk:${String(e.i)}`), e),
        finish: (_ex, o) => void log.push(`finish:${o.kind}`),
      },
    ],
    [
      'answer',
      {
        async request(ex) {
          ex.reply = reply.events(events(3))
        },
      },
    ],
  ])
  const wrapped = await streamed(r, exchange())
  for await (const e of wrapped.events) log.push(`out:${String(e.i)}`)
  assert.equal(log, ['chunk:0', 'out:0', 'chunk:1', 'out:1', 'chunk:2', 'out:2', 'finish:done'])
})

test('a stream the consumer leaves early (client gone): finish gets aborted', async () => {
  let outcome: Outcome | undefined
  const r = route([
    ['a', { finish: (_ex, o) => void (outcome = o) }],
    [
      'answer',
      {
        async request(ex) {
          ex.reply = reply.events(events(10))
        },
      },
    ],
  ])
  for await (const e of (await streamed(r, exchange())).events) if (e.i === 1) break
  assert.is(outcome?.kind, 'aborted')
  assert.is(outcome?.status, 499)
})

test('a stream cut upstream: the consumer sees the error, finish gets failed with its status', async () => {
  let outcome: Outcome | undefined
  const r = route([
    ['a', { finish: (_ex, o) => void (outcome = o) }],
    [
      'answer',
      {
        async request(ex) {
          ex.reply = reply.events(events(5, 2))
        },
      },
    ],
  ])
  const stream = await streamed(r, exchange())
  const got: unknown[] = []
  try {
    for await (const e of stream.events) got.push(e.i)
    assert.unreachable('the cut was not reported')
  } catch (err) {
    assert.is((err as GatewayError).status, 502)
  }
  assert.equal(got, [0, 1])
  assert.equal([outcome?.kind, outcome?.status], ['failed', 502])
})

test('a finish that throws: the others still run, and the error is kept for the harness', async () => {
  const log: string[] = []
  const r = route([
    ['a', { finish: () => void log.push('a') }],
    [
      'bad',
      {
        finish: () => {
          throw new Error('finish broke')
        },
      },
    ],
    [
      'answer',
      {
        async request(ex) {
          ex.reply = reply.json({})
        },
      },
    ],
  ])
  const ex = exchange()
  const state: ChainState = { entered: 0, finished: false }
  await runRequest(r, ex, state)
  await finishAll(r, ex, state, { kind: 'done', status: 200 })
  assert.equal(log, ['a'])
  assert.is(state.finishErrors?.length, 1)
  assert.is(state.finishErrors?.[0]?.step, 'bad')
})

test('response headers: free until the reply leaves, then a change throws instead of being lost', () => {
  const ex = exchange()
  ex.headers.set('x-gateway-before', '1')
  ex.sealHeaders()
  assert.throws(() => ex.headers.set('x-gateway-after', '1'), /set after the reply's headers were sent/)
  assert.throws(() => ex.headers.delete('x-gateway-before'), /after the reply's headers were sent/)
  assert.is(ex.headers.get('x-gateway-before'), '1')
})

test.run()
