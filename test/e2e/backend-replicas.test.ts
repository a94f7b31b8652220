/**
 * A backend with three simulator replicas, each a real server on its own port with its own
 * prefix cache and waiting line (the third its own process, so that it can be killed with
 * SIGKILL: no goodbye on its sockets): load is spread; a replica killed during a bounded load loop
 * (200 requests at concurrency 16, half streamed) costs no client anything (every reply whole,
 * every stream ends with one finish and [DONE]) and gets no request once ejected; brought back
 * on its port, it is used again after its health check; requests that share a long system
 * prompt land on one replica and report cached tokens.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { dump, load as loadYaml } from 'js-yaml'
import { defaultConfigDir, repoRoot } from '../../kernel/contract/paths.js'
import { loadSimConfig, startSimulator, type RunningSimulator } from '../../sim/index.js'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { modelsWith } from '../support/deployment-files.js'

const test = suite('e2e backend replicas')
const SERVED = 'sim-instruct-8b'
const MODEL = 'sim-pooled'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A replica as the test sees it: its URL and port, and how many requests its model served. */
interface Sim {
  readonly url: string
  readonly port: number
  served(): Promise<number>
}

let sims: Sim[] = []
let child: ChildProcess | undefined
const inProcess: RunningSimulator[] = []
let gw: TestGateway
const LATENCY = { ttft_ms: 10, itl_ms: 0, jitter: 0 }

/** A simulator in this process, with a little time to first token, so a kill finds requests in flight. */
async function startSim(): Promise<Sim> {
  const sim = await startSimulator({ ...loadSimConfig(), latency: LATENCY }, { port: 0, log: () => undefined })
  inProcess.push(sim)
  return { url: sim.url, port: sim.port, served: async () => sim.stats().models[SERVED]?.requests ?? 0 }
}

/** A simulator in a process of its own (`node dist/sim/main.js`), counted through its vLLM metrics. */
async function startSimProcess(port = 0): Promise<Sim> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-replica-sim-')), 'simulator.yaml')
  const config = loadYaml(fs.readFileSync(path.join(defaultConfigDir, 'simulator.yaml'), 'utf8')) as Record<
    string,
    unknown
  >
  fs.writeFileSync(file, dump({ ...config, latency: LATENCY }))
  const proc = spawn(
    process.execPath,
    [path.join(repoRoot, 'dist', 'sim', 'main.js'), '--config', file, '--port', String(port)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  child = proc
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    proc.once('exit', (code) => reject(new Error(`the simulator process exited with ${code}`)))
  })
  proc.stdout!.resume()
  const served = async (): Promise<number> => {
    const text = await (await fetch(`${url}/metrics`)).text()
    const counted = text
      .split('\n')
      .filter((l) => l.startsWith('vllm:request_success_total{') && l.includes(`model_name="${SERVED}"`))
    return counted.reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0)
  }
  return { url, port: Number(new URL(url).port), served }
}

/** SIGKILL: the process ends at once, its sockets closed by the kernel, mid-reply. */
async function kill(proc: ChildProcess): Promise<void> {
  const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
  proc.kill('SIGKILL')
  await gone
}

const served = (sim: Sim): Promise<number> => sim.served()
const servedAll = (): Promise<number[]> => Promise.all(sims.map(served))

test.before(async () => {
  sims = await Promise.all([startSim(), startSim(), startSimProcess()])
  gw = await startTestGateway({
    files: {
      'config/models.yaml': modelsWith({
        backends: {
          pooled: {
            replicas: sims.map((s) => s.url),
            capacity: 64,
            health_check: { interval_ms: 100, timeout_ms: 500 },
            outlier_detection: { consecutive_failures: 2, base_ejection_ms: 500, max_ejection_percent: 34 },
          },
        },
        models: [
          {
            id: MODEL,
            model_type: 'chat',
            backend: 'pooled',
            served_name: SERVED,
            reported_name: 'sim-pooled',
            context_window: 32768,
          },
        ],
      }),
    },
  })
})

test.after(async () => {
  await gw?.close()
  child?.kill('SIGKILL')
  await Promise.all(inProcess.map((s) => s.close().catch(() => undefined)))
})

interface Answer {
  ok: boolean
  detail: string
}

/** One chat request; a reply counts only whole: parsed JSON with content, or a stream with one finish and [DONE]. */
async function ask(content: string, stream: boolean, system?: string): Promise<Answer & { cached?: number }> {
  const messages = system
    ? [
        { role: 'system', content: system },
        { role: 'user', content },
      ]
    : [{ role: 'user', content }]
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: MODEL,
      messages,
      max_tokens: 12,
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    }),
  })
  const text = await res.text()
  if (res.status !== 200) return { ok: false, detail: `status ${res.status}: ${text.slice(0, 200)}` }
  if (!stream) {
    const body = JSON.parse(text) as {
      choices: { message: { content: string }; finish_reason: string }[]
      usage: { prompt_tokens_details?: { cached_tokens?: number } }
    }
    const whole =
      body.choices.length === 1 &&
      body.choices[0]!.message.content.length > 0 &&
      typeof body.choices[0]!.finish_reason === 'string'
    return { ok: whole, detail: text.slice(0, 200), cached: body.usage.prompt_tokens_details?.cached_tokens ?? 0 }
  }
  const events = text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6))
  const done = events.filter((e) => e === '[DONE]').length
  const chunks = events
    .filter((e) => e !== '[DONE]')
    .map((e) => JSON.parse(e) as { choices: { finish_reason: string | null }[]; error?: unknown })
  const finishes = chunks.flatMap((c) => c.choices).filter((c) => c.finish_reason !== null).length
  const errors = chunks.filter((c) => c.error !== undefined).length
  const whole = done === 1 && events.at(-1) === '[DONE]' && finishes === 1 && errors === 0
  return { ok: whole, detail: text.slice(-300) }
}

async function replicaGauge(name: string, sim: Sim): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text()
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith(`${name}{`) && l.includes('backend="pooled"') && l.includes(`replica="127.0.0.1:${sim.port}"`),
    )
  assert.ok(line, `${name} for replica ${sim.port} is in /metrics`)
  return Number(line!.split(' ').at(-1))
}

/** `count` requests, `concurrency` at a time, alternately streamed; `midway` runs once after `at` answers. */
async function load(
  count: number,
  concurrency: number,
  midway?: { at: number; run: () => Promise<void> },
): Promise<Answer[]> {
  const answers: Answer[] = []
  let next = 0
  let killed: Promise<void> | undefined
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++
      answers.push(await ask(`question ${i}`, i % 2 === 1))
      if (midway && answers.length === midway.at) killed = midway.run()
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  await killed
  return answers
}

test('load is spread over every replica', async () => {
  const before = await servedAll()
  const answers = await load(30, 6)
  assert.equal(
    answers.filter((a) => !a.ok),
    [],
  )
  ;(await servedAll()).forEach((n, i) => assert.ok(n > before[i]!, `replica ${i} served some of the requests`))
  // Every request ended (streams included): nothing is left outstanding.
  for (const s of sims) assert.is(await replicaGauge('sluice_backend_replica_outstanding', s), 0)
})

test('a replica killed (SIGKILL) during load: every request answered whole by the others, none to it once ejected', async () => {
  const victim = sims[2]!
  const answers = await load(200, 16, { at: 60, run: () => kill(child!) })
  const bad = answers.filter((a) => !a.ok)
  assert.is(answers.length, 200)
  assert.equal(bad, [], 'every reply whole (non-streamed parsed, streams with one finish and [DONE])')
  assert.is(await replicaGauge('sluice_backend_replica_ejected', victim), 1, 'the dead replica is out')
  // Once out, it gets nothing: the gateway sends it no request while the others answer.
  const sentBefore = await replicaGauge('sluice_backend_replica_requests_total', victim)
  const servedBefore = (await served(sims[0]!)) + (await served(sims[1]!))
  const more = await load(40, 8)
  assert.equal(
    more.filter((a) => !a.ok),
    [],
  )
  assert.is(
    await replicaGauge('sluice_backend_replica_requests_total', victim),
    sentBefore,
    'no request sent to the ejected replica',
  )
  assert.is((await served(sims[0]!)) + (await served(sims[1]!)) - servedBefore, 40, 'the two others served all 40')
})

test('a replica brought back on its port is used again after its health check', async () => {
  const port = sims[2]!.port
  sims[2] = await startSimProcess(port)
  // The health check runs every 100 ms and the ejection lasts 500 ms: bounded wait for it.
  for (let i = 0; i < 100 && (await replicaGauge('sluice_backend_replica_ejected', sims[2])) === 1; i++) await sleep(50)
  assert.is(await replicaGauge('sluice_backend_replica_ejected', sims[2]), 0, 'back in')
  const answers = await load(30, 6)
  assert.equal(
    answers.filter((a) => !a.ok),
    [],
  )
  assert.ok((await served(sims[2])) > 0, 'the replica brought back served requests')
})

test('requests sharing a long system prompt land on one replica and report cached tokens', async () => {
  const systems = ['alpha', 'beta', 'gamma'].map(
    (w) => `You are the ${w} assistant. ${`Follow the ${w} house rules carefully and answer briefly. `.repeat(60)}`,
  )
  for (const system of systems) {
    const landed = new Set<number>()
    const cached: number[] = []
    for (let turn = 0; turn < 5; turn++) {
      const before = await servedAll()
      const answer = await ask(`turn ${turn}: what now?`, false, system)
      assert.ok(answer.ok, answer.detail)
      cached.push(answer.cached ?? 0)
      ;(await servedAll()).forEach((n, i) => {
        if (n > before[i]!) landed.add(i)
      })
    }
    assert.is(landed.size, 1, 'one replica served every request of this system prompt')
    assert.ok(
      cached.slice(1).every((c) => c > 500),
      `later requests found the prefix cached: ${cached.join(', ')}`,
    )
  }
})

test.run()
