/**
 * Starts the real gateway on a loopback port for end-to-end tests, from a copy of the
 * embedded default config (so a test may change files without touching the repository),
 * with the in-process simulator behind it.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import OpenAI from 'openai'
import { dump, load } from 'js-yaml'
import { startGateway, type GatewayOptions, type RunningGateway } from '../../bin/gateway.js'
import { createLogger, type LogSink } from '../../kernel/contract/log.js'
import { defaultConfigDir, defaultPipelinesDir } from '../../kernel/contract/paths.js'
import type { ServerOverrides } from '../../schemas/server.schema.js'
import { TEST_KEY } from '../../bin/testing/harness.js'

export { TEST_KEY }
/** The demo project's tokens (config/projects.yaml) in every test gateway. */
export const TEST_DEV_TOKEN = 'qt-test-developer-token'
export const TEST_SERVICE_TOKEN = 'qt-test-service-token'

export interface TestGateway extends RunningGateway {
  configDir: string
  pipelinesDir: string
  dataDir: string
  /** Every log line written so far. */
  logs: string[]
  openai(key?: string): OpenAI
  /** Writes a file into the copied config or pipelines folder. */
  write(folder: 'config' | 'pipelines', name: string, text: string): void
}

function copyDir(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true })
  for (const f of fs.readdirSync(from)) {
    const src = path.join(from, f)
    if (fs.statSync(src).isFile()) fs.copyFileSync(src, path.join(to, f))
  }
}

export interface TestGatewayOptions extends Omit<GatewayOptions, 'server'> {
  server?: ServerOverrides
  /** Files to write over the copied config before start: `{ 'config/keys.yaml': '...' }`. */
  files?: Record<string, string>
  /** Simulator latency: zero unless a test asks. */
  simulatorLatency?: { ttft_ms: number; itl_ms: number }
  /**
   * Let every group's keys drive the simulator with its `x-sim-*` headers (default true: end
   * to end tests stall, cut and time it that way). The shipped keys.yaml keeps them off; a
   * test of that default says `simulatorControls: false`.
   */
  simulatorControls?: boolean
}

/** A copy of the embedded default config and pipelines, with `files` written over it. */
export function prepareDeployment(
  options: Pick<TestGatewayOptions, 'files' | 'simulatorLatency' | 'simulatorControls'> = {},
): { configDir: string; pipelinesDir: string; dataDir: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-e2e-'))
  const configDir = path.join(root, 'config')
  const pipelinesDir = path.join(root, 'pipelines')
  const dataDir = path.join(root, 'data')
  copyDir(defaultConfigDir, configDir)
  copyDir(defaultPipelinesDir, pipelinesDir)
  // Tests run the simulator at zero latency unless they ask for some.
  const simFile = path.join(configDir, 'simulator.yaml')
  const latency = options.simulatorLatency ?? { ttft_ms: 0, itl_ms: 0 }
  fs.writeFileSync(
    simFile,
    fs
      .readFileSync(simFile, 'utf8')
      .replace(/ttft_ms:\s*\d+/, `ttft_ms: ${latency.ttft_ms}`)
      .replace(/itl_ms:\s*\d+/, `itl_ms: ${latency.itl_ms}`),
  )
  for (const [name, text] of Object.entries(options.files ?? {})) fs.writeFileSync(path.join(root, name), text)
  if (options.simulatorControls !== false) allowSimulatorControls(path.join(configDir, 'keys.yaml'))
  return { configDir, pipelinesDir, dataDir }
}

export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const { configDir, pipelinesDir, dataDir } = prepareDeployment(options)
  const logs: string[] = []
  const sink: LogSink = { write: (line) => void logs.push(line) }
  const gateway = await startGateway({
    ...options,
    configDir,
    pipelinesDir,
    dataDir,
    env: {
      SLUICE_DEMO_DEV_TOKEN: TEST_DEV_TOKEN,
      SLUICE_DEMO_SERVICE_TOKEN: TEST_SERVICE_TOKEN,
      ...(options.env ?? { SLUICE_DEMO_KEY: TEST_KEY }),
    },
    log: options.log ?? createLogger({ level: 'debug', sink }),
    // The access log goes to a file of the test's data folder (read by the tests of the log).
    server: {
      port: 0,
      watch: false,
      access_log: { enabled: true, to: 'access.log', flush_ms: 50, max_buffered_bytes: 8_388_608 },
      ...options.server,
    },
    announce: () => undefined,
  })
  return Object.assign(gateway, {
    configDir,
    pipelinesDir,
    dataDir,
    logs,
    openai: (key = TEST_KEY) =>
      new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 30_000 }),
    write(folder: 'config' | 'pipelines', name: string, text: string) {
      fs.writeFileSync(path.join(folder === 'config' ? configDir : pipelinesDir, name), text)
    },
  })
}

/** Sets `forward_headers: true` on every group of a keys.yaml that does not say otherwise. */
function allowSimulatorControls(file: string): void {
  const doc = load(fs.readFileSync(file, 'utf8')) as { groups?: Record<string, Record<string, unknown> | null> }
  for (const [id, group] of Object.entries(doc.groups ?? {})) doc.groups![id] = { forward_headers: true, ...group }
  fs.writeFileSync(file, dump(doc))
}
