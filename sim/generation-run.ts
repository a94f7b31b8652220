/**
 * The life of one generating request, whatever the endpoint: admission (run now, wait in line,
 * or 429), the prefix-cache lookup when it starts, time to first token, inter-token latency,
 * delivery (one JSON body or a stream written chunk by chunk with backpressure), faults, and
 * the metrics at the end. With no latency and no fault the whole reply is written
 * synchronously, without a timer or a promise, which is what benchmarks rely on.
 */
import { writeOrWait } from './http-io.js'
import type { ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import { sleep, type ActiveRequests, type RequestLife } from './active-requests.js'
import { sendJson, sseHeaders } from './http-io.js'
import { isInstant, sampleMs, type RequestLatency } from './latency.js'
import type { FinishedReason } from './metrics.js'
import type { ModelEngine, RunOutcome, RunTicket } from './model-engine.js'
import { waitForSlot, type Admission } from './scheduler.js'
import type { SeededRandom } from './seeded-random.js'

/** A stream's chunks, already serialized as `data:` lines. */
export interface StreamScript {
  /** Sent with the first token: each choice's `role` chunk. */
  opening: string[]
  /** One entry per token step; each chunk in a step carries exactly one token. */
  steps: string[][]
  /** After the last token: finish chunks, the usage chunk, `[DONE]`. */
  closing: string[]
}

export interface GenerationJob {
  engine: ModelEngine
  /** Prompt token ids: one list, or one per prompt of a legacy completions batch. */
  prompts: ReadonlyArray<readonly number[]>
  completionTokens: number
  /** Token steps of the reply (the longest choice), which is what the latency is paid for. */
  tokenSteps: number
  finishedReason: Exclude<FinishedReason, 'abort'>
  stream: boolean
  json(ticket: RunTicket): unknown
  script(ticket: RunTicket): StreamScript
}

/**
 * A pooling run (embeddings, scores): the prompt is read, no token is generated, and the reply is
 * one JSON body. It still takes a running slot and pays the prompt's prefill like vLLM's.
 */
export function poolingJob(
  engine: ModelEngine,
  prompts: ReadonlyArray<readonly number[]>,
  json: () => unknown,
): GenerationJob {
  return {
    engine,
    prompts,
    completionTokens: 0,
    tokenSteps: 0,
    finishedReason: 'stop',
    stream: false,
    json,
    script: () => ({ opening: [], steps: [], closing: [] }),
  }
}

export interface RunEnv {
  res: ServerResponse
  latency: RequestLatency
  /** Token chunks to send before the connection is destroyed (failure injection). */
  cutAfterChunks: number | undefined
  jitter: SeededRandom
  active: ActiveRequests
  /** performance.now() when the request arrived. */
  arrival: number
}

/** Admits the job (throwing the 429 of a full line) and runs it to its end. */
export function runGeneration(job: GenerationJob, env: RunEnv): void | Promise<void> {
  const admission = job.engine.scheduler.admit()
  if (admission.kind === 'running' && isInstant(env.latency) && env.cutAfterChunks === undefined) {
    runInstantly(job, env)
    return
  }
  return runTimed(job, env, admission)
}

function runInstantly(job: GenerationJob, env: RunEnv): void {
  const ticket = job.engine.startRun(job.prompts, job.completionTokens, 0)
  const outcome: RunOutcome = {
    finishedReason: job.finishedReason,
    completionTokens: job.completionTokens,
    ttftSeconds: 0,
    e2eSeconds: 0,
  }
  try {
    if (job.stream) {
      const script = job.script(ticket)
      const text =
        script.opening.join('') + script.steps.map((step) => step.join('')).join('') + script.closing.join('')
      // The whole stream exists already: a length instead of chunked encoding saves a writev per
      // reply, and SSE clients read it the same way.
      env.res.writeHead(200, { ...sseHeaders, 'content-length': Buffer.byteLength(text) })
      env.res.end(text)
    } else {
      sendJson(env.res, 200, job.json(ticket))
    }
    const itl = job.engine.metrics.interTokenLatency
    for (let i = 1; i < job.tokenSteps; i++) itl.observe(0)
  } finally {
    outcome.e2eSeconds = (performance.now() - env.arrival) / 1000
    job.engine.endRun(ticket, outcome)
  }
}

async function runTimed(job: GenerationJob, env: RunEnv, admission: Admission): Promise<void> {
  const life = env.active.open(env.res)
  try {
    // vLLM answers a stream's headers as soon as the request is accepted, before it runs.
    if (job.stream) {
      env.res.writeHead(200, sseHeaders)
      env.res.flushHeaders()
    }
    if (!(await waitForSlot(admission, life))) return
    const queueSeconds = (performance.now() - env.arrival) / 1000
    const ticket = job.engine.startRun(job.prompts, job.completionTokens, queueSeconds)
    const outcome: RunOutcome = {
      finishedReason: job.finishedReason,
      completionTokens: 0,
      ttftSeconds: undefined,
      e2eSeconds: 0,
    }
    try {
      if (job.stream) await deliverStream(job.script(ticket), job, env, life, outcome, ticket)
      else await deliverJson(job, env, life, ticket, outcome)
    } finally {
      outcome.e2eSeconds = (performance.now() - env.arrival) / 1000
      job.engine.endRun(ticket, outcome)
    }
  } finally {
    life.close()
  }
}

/** The wait before the first token: stall, ttft, and the prefill of what the prefix cache lacked. */
function firstTokenDelay(env: RunEnv, ticket: RunTicket): number {
  const prefill = (ticket.promptTokens - ticket.cachedTokens) * env.latency.prefillMsPerToken
  return env.latency.stallMs + sampleMs(env.latency.ttftMs, env.latency.jitter, env.jitter) + prefill
}

async function deliverJson(
  job: GenerationJob,
  env: RunEnv,
  life: RequestLife,
  ticket: RunTicket,
  outcome: RunOutcome,
): Promise<void> {
  let wait = firstTokenDelay(env, ticket)
  const gaps: number[] = []
  for (let i = 1; i < job.tokenSteps; i++) gaps.push(sampleMs(env.latency.itlMs, env.latency.jitter, env.jitter))
  for (const gap of gaps) wait += gap
  if (!(await sleep(wait, life.signal))) {
    outcome.finishedReason = 'abort'
    return
  }
  outcome.ttftSeconds = (performance.now() - env.arrival) / 1000 - gaps.reduce((a, b) => a + b, 0) / 1000
  for (const gap of gaps) job.engine.metrics.interTokenLatency.observe(gap / 1000)
  if (env.cutAfterChunks !== undefined) {
    // A non-streamed reply has no chunks to cut between: the connection dies before the body.
    outcome.finishedReason = 'abort'
    env.res.destroy()
    return
  }
  outcome.completionTokens = job.completionTokens
  sendJson(env.res, 200, job.json(ticket))
}

async function deliverStream(
  script: StreamScript,
  job: GenerationJob,
  env: RunEnv,
  life: RequestLife,
  outcome: RunOutcome,
  ticket: RunTicket,
): Promise<void> {
  const { res } = env
  const cutAfter = env.cutAfterChunks
  if (!(await sleep(firstTokenDelay(env, ticket), life.signal))) {
    outcome.finishedReason = 'abort'
    return
  }
  outcome.ttftSeconds = (performance.now() - env.arrival) / 1000
  if (cutAfter === 0) return cutAfterWriting(res, script.opening.join(''), outcome)
  if (!(await writeOrWait(res, script.opening.join(''), life))) return abort(outcome)
  let previous = performance.now()
  for (let step = 0; step < script.steps.length; step++) {
    if (step > 0) {
      if (!(await sleep(sampleMs(env.latency.itlMs, env.latency.jitter, env.jitter), life.signal)))
        return abort(outcome)
      const now = performance.now()
      job.engine.metrics.interTokenLatency.observe((now - previous) / 1000)
      previous = now
    }
    for (const chunk of script.steps[step] ?? []) {
      if (outcome.completionTokens + 1 === cutAfter) {
        outcome.completionTokens++
        return cutAfterWriting(res, chunk, outcome)
      }
      if (!(await writeOrWait(res, chunk, life))) return abort(outcome)
      outcome.completionTokens++
    }
  }
  if (!(await writeOrWait(res, script.closing.join(''), life))) return abort(outcome)
  // Hidden reasoning (include_reasoning: false) is generated but not sent: count the plan, not the chunks.
  outcome.completionTokens = job.completionTokens
  res.end()
}

function abort(outcome: RunOutcome): void {
  outcome.finishedReason = 'abort'
}

/**
 * Dies mid-stream like a crashed server: the last chunk reaches the socket (its write callback
 * says so), then the socket is destroyed without the stream's end.
 */
async function cutAfterWriting(res: ServerResponse, text: string, outcome: RunOutcome): Promise<void> {
  outcome.finishedReason = 'abort'
  await new Promise<void>((resolve) => {
    if (res.destroyed) return resolve()
    // The callback fires once the data is handed to the OS, or with an error if the socket died.
    res.write(text, () => resolve())
  })
  res.destroy()
}
