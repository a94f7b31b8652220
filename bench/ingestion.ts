/**
 * Ingestion rate through the product's whole path: the pages of bench/corpus/sqlite-doc/ loaded
 * by the compiled `sluice-kb load` (a child process, 4 uploads in flight, as an operator runs
 * it) into a gateway on the embedded default (SQLite store, the `use-lite` embedder, vector
 * windows on): HTTP upload, reading and chunking in the reader threads, windows, the
 * `embeddings` route (fair queue, budget, records), the embedder's threads, the store's write.
 *
 * The machine is shared, so each configuration is printed beside a baseline measured just
 * before and just after it in the same process (the mean of the two): the raw model, one
 * thread, in-process, on 32 of the corpus's window texts (wall ms a text). `chunks/s ÷ raw
 * texts/s` is the figure to compare across runs. The process's CPU time per chunk (gateway,
 * readers and embedder threads together) measures the work, whatever the machine's load.
 *
 *   npm run bench -- ingestion [--threads 1,2] [--rounds 1]
 *
 * `--threads`: the embedder's pool sizes to run (server.yaml `embedder.threads`), one gateway
 * each; `default` runs without the setting. `--rounds`: how many times the list is run, in turn.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { repoRoot } from '../kernel/contract/paths.js'
import { loadUseLite } from '../kernel/services/embedder/use-lite-model.js'
import { chunkDocument, DEFAULT_CHUNKING } from '../domains/query/knowledge/chunker.js'
import { vectorWindows } from '../domains/query/knowledge/windows.js'
import { startTestGateway, TEST_KEY } from '../test/support/gateway.js'
import { option } from './bench-setup.js'
import { corpusDir, corpusFiles, readPage, type CorpusName } from './quality-corpus.js'

const ADMIN = 'sk-admin-bench-ingestion'
const CLI = path.join(repoRoot, 'dist', 'bin', 'sluice-kb.js')
const threadsArg = process.argv[process.argv.indexOf('--threads') + 1]
const configs = (process.argv.includes('--threads') && threadsArg ? threadsArg : '1,2').split(',')
const rounds = option('rounds', 1)
/** Longest one load may take before the bench gives up on it. */
const LOAD_LIMIT_MS = 20 * 60_000

/** The corpus loaded (`--corpus`, sqlite-doc by default). */
const CORPUS: CorpusName = process.argv.includes('--corpus')
  ? (process.argv[process.argv.indexOf('--corpus') + 1] as CorpusName)
  : 'sqlite-doc'

const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/** The corpus's pages alone (not its README or questions), in a folder of their own. */
function pagesFolder(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-ingestion-'))
  for (const f of corpusFiles(CORPUS)) fs.copyFileSync(path.join(corpusDir(CORPUS), f), path.join(folder, f))
  return folder
}

/** One thread, in-process: ms a text for 32 window texts of the corpus, in one batch. */
async function rawModel(sample: string[]): Promise<number> {
  const model = await loadUseLite()
  await model.embed(['warm'])
  const t = performance.now()
  await model.embed(sample)
  return (performance.now() - t) / sample.length
}

function load(folder: string, url: string, collection: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CLI, 'load', folder, '--project', 'bench', '--collection', collection, '--create', '--url', url],
      { env: { PATH: process.env.PATH ?? '', SLUICE_ADMIN_KEY: ADMIN }, timeout: LOAD_LIMIT_MS },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stdout}${stderr}`)) : resolve(stdout)),
    )
  })
}

async function main(): Promise<void> {
  const folder = pagesFolder()
  const chunks = corpusFiles(CORPUS).flatMap((f) => chunkDocument(readPage(CORPUS, f), DEFAULT_CHUNKING))
  const windows = chunks.flatMap((c) => vectorWindows(c.content, 96))
  const sample = windows.filter((_, i) => i % Math.floor(windows.length / 32) === 0).slice(0, 32)
  console.log(
    `ingestion: ${corpusFiles(CORPUS).length} pages of ${CORPUS} by sluice-kb load (4 in flight), SQLite store, use-lite with 96-token windows; ${os.cpus()[0]?.model ?? '?'} × ${os.availableParallelism()}, node ${process.version}`,
  )
  console.log('threads   chunks   seconds  chunks/s   cpu ms/chunk   raw ms/text   chunks/s ÷ raw texts/s   load avg')
  try {
    for (let round = 0; round < rounds; round++) {
      for (const threads of configs) {
        const rawBefore = await rawModel(sample)
        const gw = await startTestGateway({
          env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
          ...(threads === 'default' ? {} : { server: { embedder: { threads: Number(threads) } } }),
        })
        try {
          const before = os.loadavg()[0]!
          const c0 = cpuMs()
          const t0 = performance.now()
          const out = await load(folder, gw.url, `c${round}-${threads}`)
          const seconds = (performance.now() - t0) / 1000
          const cpu = cpuMs() - c0
          const summary = /summary: (\d+) loaded.*?(\d+) failed; (\d+) chunks/.exec(out)
          if (!summary || summary[2] !== '0') throw new Error(`the load did not load every page:\n${out}`)
          const n = Number(summary[3])
          const rate = n / seconds
          const raw = (rawBefore + (await rawModel(sample))) / 2
          console.log(
            `${threads.padStart(7)} ${String(n).padStart(8)} ${seconds.toFixed(1).padStart(9)} ${rate.toFixed(2).padStart(9)} ${(cpu / n).toFixed(0).padStart(14)} ${raw.toFixed(1).padStart(13)} ${(rate / (1000 / raw)).toFixed(3).padStart(24)}   ${before.toFixed(1)} → ${os.loadavg()[0]!.toFixed(1)}`,
          )
        } finally {
          await gw.close()
        }
      }
    }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true })
  }
}

await main()
