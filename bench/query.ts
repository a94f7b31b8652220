/**
 * The Query service's added latency: the same question sent straight to chat completions, as
 * a query with search off, and as a query with search on over a 10,000-chunk collection, one
 * request at a time (so latency is the service's, not a queue's), interleaved rounds, medians.
 * The simulator runs at zero latency in its own process; the query's embedding is the real
 * use-lite model in the gateway's process (the `embeddings` route, as in production).
 *
 * The collection is SYNTHETIC at scale (bench/scale-corpus.ts): real sqlite3-doc chunks with
 * their real use-lite vectors plus seeded noise, written straight into the gateway's SQLite
 * knowledge store before it starts.
 *
 *   npm run bench -- query [--chunks 10000] [--sample 200] [--seconds 10] [--rounds 3]
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { dump, load } from 'js-yaml'
import { startGatewayChild } from './gateway-child.js'
import { startChild } from './children.js'
import { runLoad, type LoadResult } from './load.js'
import { repoRoot } from '../kernel/contract/paths.js'
import { formatHash, hashSecret } from '../protocols/credentials/secrets.js'
import { openSqliteKnowledge } from '../domains/query/knowledge/sqlite-knowledge.js'
import { openSqliteFile } from '../kernel/services/stores/sqlite-file.js'
import { USE_LITE_DIMENSIONS } from '../kernel/services/embedder/use-lite-model.js'
import { formatLoad, gatewayConfigFor, option, zeroLatencySimConfig } from './bench-setup.js'
import { realSample, syntheticDoc } from './scale-corpus.js'
import { isAnswerable, loadQuestions } from './quality-corpus.js'

const KEY = 'sk-bench'
const TOKEN = 'qt-bench-service'
const CHUNKS = option('chunks', 10_000)
const SECONDS = option('seconds', 10)
const ROUNDS = option('rounds', 3)
const DOC_SIZE = 100
const dist = path.join(repoRoot, 'dist')

async function fillCollection(dataDir: string): Promise<void> {
  const sample = await realSample(option('sample', 200))
  const store = openSqliteKnowledge(openSqliteFile(dataDir, 'knowledge.db'), () => undefined)
  await store.createCollection('bench', 'scale', { dimension: USE_LITE_DIMENSIONS, embeddingModel: 'use-lite' })
  const real = sample.docs.flatMap((d) => d.chunks)
  for (let d = 0; d < CHUNKS / DOC_SIZE; d++) {
    const doc = syntheticDoc(real, d, DOC_SIZE)
    await store.upsertDocument('bench', 'scale', { sourceName: doc.sourceName, tags: doc.tags }, doc.chunks)
  }
  await store.close()
}

function configFor(simUrl: string): string {
  const dir = gatewayConfigFor(simUrl, KEY, { capacity: 1000, connections: 16 }, ['gateway.yaml', 'query.yaml'])
  // The real embedder stays in process: the query's embedding is part of what a query costs.
  const models = load(fs.readFileSync(path.join(dir, 'models.yaml'), 'utf8')) as {
    backends: Record<string, Record<string, unknown>>
  }
  models.backends.embedder!.url = 'embedded-embedder'
  models.backends.embedder!.capacity = 1
  fs.writeFileSync(path.join(dir, 'models.yaml'), dump(models))
  const project = {
    key: 'bench',
    defaults: { model_name: 'sim-chat-instruct' },
    tokens: [{ id: 'bench-service', kind: 'service', hash: formatHash(hashSecret(TOKEN)) }],
  }
  fs.writeFileSync(path.join(dir, 'projects.yaml'), dump({ projects: { bench: project } }))
  return dir
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-query-'))
  const t0 = Date.now()
  await fillCollection(dataDir)
  const fillS = (Date.now() - t0) / 1000
  const sim = await startChild(path.join(dist, 'sim', 'main.js'), ['--config', zeroLatencySimConfig(), '--port', '0'])
  const gateway = await startGatewayChild(configFor(sim.url), { SLUICE_DATA: dataDir })
  const question = loadQuestions('sqlite-doc').filter(isAnswerable)[0]!.question
  const system = 'You are a helpful assistant.'
  const chat = JSON.stringify({
    model: 'sim-chat-instruct',
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: question },
    ],
    max_tokens: 32,
  })
  const q = (search: boolean) =>
    JSON.stringify({
      endpoint: 'query',
      query: question,
      request_source: 'override_params',
      model_params: { system_prompt: system, max_tokens: 32 },
      enable_search: search,
      ...(search ? { search_params: { collection: 'scale', top_k: 4, prompt_mode: 'unrestricted' } } : {}),
    })
  const targets = [
    { name: 'chat completions', path: '/v1/chat/completions', body: chat, auth: KEY },
    { name: 'query, search off', path: '/query/v1/query', body: q(false), auth: TOKEN },
    { name: `query, search on (${CHUNKS} chunks)`, path: '/query/v1/query', body: q(true), auth: TOKEN },
  ]
  console.log(
    `Query service latency: ${new Date().toISOString().slice(0, 10)}, ${os.cpus()[0]?.model ?? '?'} × ${os.cpus().length}, node ${process.version}`,
  )
  console.log(
    `one connection, ${ROUNDS} interleaved rounds of ${SECONDS} s, medians; simulator at zero latency (max_tokens 32); collection filled in ${fillS.toFixed(0)} s\n`,
  )
  const runs = new Map<string, LoadResult[]>()
  for (const t of targets)
    await runLoad({
      url: gateway.url,
      path: t.path,
      body: t.body,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.auth}` },
      connections: 1,
      seconds: 1,
      maxRequests: 200,
    })
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of targets) {
      const r = await runLoad({
        url: gateway.url,
        path: t.path,
        body: t.body,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t.auth}` },
        connections: 1,
        seconds: SECONDS,
        maxRequests: 100_000,
      })
      if (r.errors > 0) throw new Error(`${t.name}: ${r.errors} errors`)
      runs.set(t.name, [...(runs.get(t.name) ?? []), r])
    }
  }
  const median = (name: string) => [...runs.get(name)!].sort((a, b) => a.p50 - b.p50)[Math.floor(ROUNDS / 2)]!
  const base = median(targets[0]!.name)
  for (const t of targets) {
    const m = median(t.name)
    const added =
      t === targets[0]
        ? ''
        : `   added p50 +${(m.p50 - base.p50).toFixed(2)} ms, p99 +${(m.p99 - base.p99).toFixed(2)} ms`
    console.log(`  ${t.name.padEnd(32)} ${formatLoad(m)}${added}`)
  }
  // Where a search-on query's time goes, by the service's own metadata.timings_ms.
  const phases: { retrieval: number[]; answer: number[]; total: number[]; http: number[] } = {
    retrieval: [],
    answer: [],
    total: [],
    http: [],
  }
  for (let i = 0; i < 21; i++) {
    const sent = performance.now()
    const res = await fetch(`${gateway.url}/query/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: targets[2]!.body,
    })
    const t = (
      (await res.json()) as { response: { metadata: { timings_ms: Record<'retrieval' | 'answer' | 'total', number> } } }
    ).response.metadata.timings_ms
    phases.http.push(performance.now() - sent)
    for (const k of ['retrieval', 'answer', 'total'] as const) phases[k].push(t[k])
  }
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1)
  console.log(
    `\n  search on, by phase (medians of 21, metadata.timings_ms): retrieval ${mid(phases.retrieval)} ms (embedding + both legs + fusion), answer ${mid(phases.answer)} ms, total in the query step ${mid(phases.total)} ms, over HTTP ${mid(phases.http)} ms`,
  )
  gateway.stop()
  sim.stop()
  // The gateway flushes its records on SIGTERM; give it a moment before its folder goes.
  await new Promise((resolve) => setTimeout(resolve, 1000))
  fs.rmSync(dataDir, { recursive: true, force: true })
  process.exit(0)
}

await main()
