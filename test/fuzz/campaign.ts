/**
 * A fuzz run against a running gateway: every door's inputs, sent to the routes of the loaded
 * generation with a valid key, no key or a bad one, a bounded number at once, within a count
 * and a time budget. Each answer is judged (judge.ts); the report counts inputs and statuses per
 * door, the gateway's own 5xx, the failures (each with what replays it), and the heap before and
 * after.
 */
import http from 'node:http'
import type { RunningGateway } from '../../bin/gateway.js'
import type { Door, FuzzInput, Target } from './door.js'
import { doors as allDoors } from './doors.js'
import { judge, soapFaultOf } from './judge.js'
import { inputRandom, type FuzzRandom } from './random.js'
import { sendRaw } from './send.js'
import { targetsOf } from './targets.js'
import { fillPattern } from './path-mutations.js'
import { plausibleParam } from './valid-bodies.js'
import { settledHeap, type HeapSample } from './heap.js'
import { fuzzSockets } from './socket-fuzz.js'

export interface FuzzOptions {
  seed: number
  /** Inputs per door at most. */
  perDoor: number
  /** No new input is sent after this many seconds. */
  seconds: number
  /** Requests in flight at once. */
  concurrency: number
  /** The largest string or body a mutation makes. */
  maxBytes: number
  /** An answer later than this is a failure (a hang). */
  requestTimeoutMs: number
  /** Only this input (`door#index`), to replay one failure. */
  only?: string
}

export interface Keys {
  /** An API key of the /v1 routes. */
  tenant: string
  /** The admin API's key. */
  admin: string
}

export interface Failure {
  door: string
  index: number
  routeId: string
  method: string
  path: string
  auth: string
  mutation: string
  reason: string
  /** The body sent, as text, cut to a few hundred characters. */
  body: string
}

export interface DoorTally {
  inputs: number
  /** By status; on SOAP routes a 500 is counted by its fault code (`500 soap:Client`). */
  statuses: Record<string, number>
  routes: Record<string, number>
  skipped?: string
}

export interface FuzzReport {
  seed: number
  doors: Record<string, DoorTally>
  failures: Failure[]
  gateway5xx: number
  before: HeapSample
  after: HeapSample
  elapsedMs: number
  /** Inputs left unsent when the time budget ran out. */
  unsent: number
  /** The five slowest answers, slowest first. */
  slowest: { ms: number; input: string }[]
}

type Auth = { label: string; header?: string }

function chooseAuth(rng: FuzzRandom, target: Target, keys: Keys): Auth {
  const roll = rng.next()
  if (roll < 0.7)
    return { label: 'valid key', header: `Bearer ${target.pipeline === 'admin' ? keys.admin : keys.tenant}` }
  if (roll < 0.85) return { label: 'no key' }
  const bad = rng.pick([
    'Bearer sk-fuzz-not-a-key',
    'Bearer',
    'Basic Zm9vOmJhcg==',
    `Bearer ${'k'.repeat(8_000)}`,
    'Bearer \u00ff\u00fe',
    `Bearer ${keys.admin}`,
    `Bearer ${keys.tenant} extra`,
  ])
  return { label: `bad key ${JSON.stringify(bad.slice(0, 24))}`, header: bad }
}

function chooseTarget(rng: FuzzRandom, door: Door, targets: readonly Target[]): Target {
  const home = targets.filter((t) => door.home(t))
  return rng.pick(home.length > 0 && rng.chance(0.75) ? home : targets)
}

const shown = (body: Buffer | undefined) => {
  if (!body || body.length === 0) return ''
  const s = JSON.stringify(body.subarray(0, 300).toString('latin1'))
  return body.length > 300 ? `${s}… (${body.length} bytes)` : s
}

export function describeFailure(f: Failure, seed: number): string {
  return `FUZZ_SEED=${seed} FUZZ_ONLY=${f.door}#${f.index}: ${f.method} ${f.path.slice(0, 200)} (route ${f.routeId}, ${f.auth}) — ${f.mutation.slice(0, 200)} — ${f.reason.slice(0, 400)}${f.body ? ` — body ${f.body}` : ''}`
}

export async function fuzzGateway(gw: RunningGateway, keys: Keys, options: FuzzOptions): Promise<FuzzReport> {
  const { targets, unserved } = targetsOf(gw.generation())
  const doorList = allDoors({ maxBytes: options.maxBytes })
  const report: FuzzReport = {
    seed: options.seed,
    doors: {},
    failures: [],
    gateway5xx: 0,
    before: await settledHeap(),
    after: undefined!,
    elapsedMs: 0,
    unsent: 0,
    slowest: [],
  }
  for (const door of doorList)
    report.doors[door.name] = { inputs: 0, statuses: {}, routes: {}, ...(door.skip ? { skipped: door.skip } : {}) }
  if (unserved.length > 0) {
    // A route of another transport with no door of its own would go unfuzzed: say so as a failure.
    for (const id of unserved)
      report.failures.push({
        door: '-',
        index: 0,
        routeId: id,
        method: '-',
        path: '-',
        auth: '-',
        mutation: '-',
        reason: 'a route no HTTP method reaches: give its transport a door in test/fuzz/doors.ts',
        body: '',
      })
  }

  // Doors interleaved, so that a time budget cut spreads over all of them.
  const active = doorList.filter((d) => !d.skip)
  const schedule: [Door, number][] = []
  for (let i = 0; i < options.perDoor; i++) for (const d of active) schedule.push([d, i])
  const queue = options.only ? schedule.filter(([d, i]) => `${d.name}#${i}` === options.only) : schedule

  const base = new URL(gw.url)
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency })
  const started = performance.now()
  const deadline = started + options.seconds * 1000
  let next = 0

  const one = async (door: Door, index: number) => {
    const rng = inputRandom(options.seed, door.name, index)
    const target = chooseTarget(rng, door, targets)
    const auth = chooseAuth(rng, target, keys)
    let input: FuzzInput
    try {
      input = door.make(rng, target, index)
    } catch (err) {
      // The harness's own bug, not the gateway's: reported, and the run goes on.
      report.failures.push({
        door: door.name,
        index,
        routeId: target.routeId,
        method: '-',
        path: '-',
        auth: auth.label,
        mutation: '-',
        reason: `the door's generator threw: ${(err as Error).stack}`,
        body: '',
      })
      return
    }
    const method = input.method ?? target.method
    const path = input.path ?? fillPattern(target.pattern, () => plausibleParam(target))
    const headers: Record<string, string> = {}
    if (auth.header !== undefined) headers.authorization = auth.header
    if (input.contentType) headers['content-type'] = input.contentType
    const tally = report.doors[door.name]!
    tally.inputs++
    tally.routes[target.routeId] = (tally.routes[target.routeId] ?? 0) + 1
    const fail = (reason: string) =>
      report.failures.push({
        door: door.name,
        index,
        routeId: target.routeId,
        method,
        path,
        auth: auth.label,
        mutation: input.mutation,
        reason,
        body: shown(input.body),
      })
    const sent = performance.now()
    const timed = () => {
      report.slowest.push({
        ms: performance.now() - sent,
        input: `${door.name}#${index} ${method} ${target.routeId}: ${input.mutation.slice(0, 120)}`,
      })
      report.slowest.sort((a, b) => b.ms - a.ms)
      report.slowest.length = Math.min(report.slowest.length, 5)
    }
    try {
      const answer = await sendRaw(agent, base, { method, path, headers, body: input.body }, options.requestTimeoutMs)
      const fault =
        target.errors === 'soap' && answer.status === 500
          ? soapFaultOf(answer.body.toString('utf8'))?.faultcode
          : undefined
      const label = fault ? `500 ${fault}` : String(answer.status)
      tally.statuses[label] = (tally.statuses[label] ?? 0) + 1
      timed()
      const verdict = judge(target, method, answer)
      if (verdict) {
        if (verdict.gateway5xx) report.gateway5xx++
        fail(verdict.reason)
      }
    } catch (err) {
      tally.statuses.none = (tally.statuses.none ?? 0) + 1
      fail(`no answer: ${(err as Error).message}`)
    }
  }

  const worker = async () => {
    while (next < queue.length && performance.now() < deadline) {
      const [door, index] = queue[next++]!
      await one(door, index)
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, worker))
  report.unsent = queue.length - next
  // The WebSocket door: messages on open sockets (its own time budget after the HTTP doors).
  const only = options.only?.startsWith('websocket#') ? options.only : options.only ? 'none' : undefined
  const sockets = await fuzzSockets(gw, {
    seed: options.seed,
    inputs: options.perDoor,
    sockets: Math.max(1, options.concurrency / 2),
    maxBytes: options.maxBytes,
    timeoutMs: options.requestTimeoutMs,
    deadline: Date.now() + Math.max(2000, options.seconds * 250),
    only,
  })
  report.doors.websocket = sockets.tally
  report.failures.push(...sockets.failures)
  report.gateway5xx += sockets.gateway5xx
  report.elapsedMs = performance.now() - started
  agent.destroy()
  report.after = await settledHeap(1000)
  return report
}
