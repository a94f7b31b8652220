/**
 * The isolation harness: runs one plugin, with options validated through the same ajv path as
 * production, between a prepared Exchange and a fake next step. No server, no socket. The
 * plugin's phases run through the kernel's own lifecycle (run/lifecycle.ts, with the in-process
 * transport), so `request`, `chunk` and `finish` behave exactly as in a route.
 */
import path from 'node:path'
import os from 'node:os'
import fs from 'node:fs'
import type { Exchange, ExchangeState, IncomingBody, Principal, Transport } from '../../kernel/contract/exchange.js'
import { tooLarge } from '../../kernel/contract/errors.js'
import type { CallOptions, CallResult, Deployment, Kernel } from '../../kernel/contract/kernel.js'
import type { AnyPlugin, Outcome, Phases, PluginDefinition } from '../../kernel/contract/plugin.js'
import type { Reply, StreamEvent } from '../../kernel/contract/reply.js'
import type { LoadedRoute } from '../../kernel/run/route.js'
import { checkOptions } from '../../kernel/run/loader.js'
import { createExchange } from '../../kernel/run/create-exchange.js'
import { runExchange } from '../../kernel/run/lifecycle.js'
import { InProcessCall, type InProcessResult } from '../../kernel/transports/in-process.js'
import { GatewayError, toGatewayError } from '../../kernel/contract/errors.js'
import { createLogger } from '../../kernel/contract/log.js'
import { errorStyle, type RenderedError } from '../../kernel/transports/error-styles.js'
import type { ErrorsSetting } from '../../schemas/pipeline.schema.js'
import { loadDeployment } from '../../kernel/run/config.js'
import { createCatalog } from '../../kernel/services/catalog/catalog.js'
import { createKeyStore } from '../../kernel/services/keys/keys.js'
import { BackendPools } from '../../kernel/services/backends/pools.js'
import { defaultConfigDir, defaultPipelinesDir } from '../../kernel/contract/paths.js'
import { MetricsRegistry } from '../../kernel/services/metrics/metrics.js'
import { RecordWriter } from '../../kernel/services/records/records.js'
import { openSqliteStore } from '../../kernel/services/stores/sqlite-store.js'
import { storesAccess } from '../../kernel/services/stores/stores-access.js'
import { QueueLoadRegistry } from '../../kernel/services/load/queue-load.js'
import { PluginStates } from '../../kernel/run/plugin-states.js'
import { openServices, type StoresConfig } from '../open-services.js'
import type { KernelServices } from '../../kernel/services/kernel-services.js'
import type { JSONSchema } from 'json-schema-to-ts'
import { knowledgeSettings, queryDomain, queryRoutes, type QueryDomain } from '../../domains/query/index.js'
import type { QueryServices } from '../../domains/query/query-services.js'
import { KnowledgeBase } from '../../domains/query/knowledge/knowledge-base.js'
import { openSqliteKnowledge } from '../../domains/query/knowledge/sqlite-knowledge.js'
import { openSqliteFile } from '../../kernel/services/stores/sqlite-file.js'
import type { DemandOf } from '../../kernel/contract/plugin.js'
import { chatDemand } from '../../protocols/openai/usage.js'
import { TOKENS_PER_MESSAGE } from '../../protocols/openai/token-estimate.js'

export const TEST_KEY = 'sk-test-demo-key'

/** Every log line written by kernels made with makeKernel. */
export const harnessLogs: string[] = []

export interface KernelOverrides {
  configDir?: string
  now?: () => number
  call?: (routeId: string, body: unknown, options?: CallOptions) => Promise<CallResult>
  simulatorUrl?: string
  env?: NodeJS.ProcessEnv
  /**
   * Shared services. Defaults: no Redis (plugins' states in memory), stores and records in
   * SQLite in a temporary folder, fresh metrics, and no admin store (key changes answer 503).
   * makeServedKernel gives the full set, PostgreSQL or Redis included.
   */
  services?: Partial<
    Pick<KernelServices, 'records' | 'redis' | 'stores' | 'load' | 'metrics' | 'storedKeys' | 'domains'>
  > & {
    /** The Query domain's knowledge base (default: one in the temporary folder, opened on first use). */
    knowledge?: KnowledgeBase
    /** The Query domain's stores (openQueryServices), for a plugin that reads projects, history or uploads. */
    query?: QueryServices
  }
  /** `admin.key_hash` of server.yaml. */
  adminKeyHash?: string
}

/** A Kernel built from real config files (the embedded default unless told otherwise). */
export function makeKernel(overrides: KernelOverrides = {}): Kernel {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-harness-'))
  const deployment: Deployment = loadDeployment({
    configDir: overrides.configDir ?? defaultConfigDir,
    pipelinesDir: defaultPipelinesDir,
    dataDir,
  })
  // Log lines stay in memory (harnessLogs), so tests can assert on them without noise.
  const log = createLogger({ level: 'debug', sink: { write: (line) => void harnessLogs.push(line) } })
  const now = overrides.now ?? Date.now
  const metrics = overrides.services?.metrics ?? new MetricsRegistry()
  const keys = createKeyStore(deployment.keys, {
    dataDir,
    env: overrides.env ?? { SLUICE_DEMO_KEY: TEST_KEY },
    log,
    stored: overrides.services?.storedKeys,
    adminKeyHash: overrides.adminKeyHash,
    now,
    catalog: () => catalog,
  })
  const catalog = createCatalog(deployment, {
    embeddedUrls: {
      embedded: overrides.simulatorUrl ?? 'http://127.0.0.1:9',
      'embedded-embedder': 'http://127.0.0.1:9',
    },
    keys,
  })
  // One SQLite store in the temporary folder, opened only when a default needs it.
  let store: ReturnType<typeof openSqliteStore> | undefined
  const sqlite = () => (store ??= openSqliteStore(dataDir))
  let knowledge: KnowledgeBase | undefined
  return {
    config: deployment,
    catalog,
    keys,
    keyAdmin: keys,
    backends: new BackendPools(catalog, (id) => keys.group(id)),
    records:
      overrides.services?.records ??
      new RecordWriter(sqlite().records, { flushMs: 60_000, batch: 500, retentionDays: 180, log, metrics, now }),
    redis: overrides.services?.redis,
    stores: overrides.services?.stores ?? storesAccess({ dataDir }),
    load: overrides.services?.load ?? new QueueLoadRegistry(),
    metrics,
    domains: overrides.services?.domains ?? {
      query: harnessQueryDomain(
        overrides,
        () =>
          (knowledge ??=
            overrides.services?.knowledge ??
            new KnowledgeBase(
              openSqliteKnowledge(openSqliteFile(dataDir, 'knowledge.db')),
              knowledgeSettings(deployment.server.knowledge),
            )),
        deployment,
      ),
    },
    log,
    now,
    call:
      overrides.call ??
      (async (routeId) => {
        throw new GatewayError(500, `no route ${routeId} in the harness`)
      }),
  }
}

/**
 * The Query domain as a plugin test sees it: the knowledge base in the temporary folder, opened
 * on first use; projects, history and uploads only when the test passes them.
 */
function harnessQueryDomain(
  overrides: KernelOverrides,
  knowledge: () => KnowledgeBase,
  deployment: Deployment,
): QueryDomain {
  const query = (): QueryServices => {
    if (!overrides.services?.query)
      throw new Error(
        'harness: pass services.query (openQueryServices) to a plugin that reads projects, history or uploads',
      )
    return overrides.services.query
  }
  return {
    get knowledge() {
      return knowledge()
    },
    get projects() {
      return query().projects
    },
    get history() {
      return query().history
    },
    get uploads() {
      return query().uploads
    },
    routes: queryRoutes(deployment.server.query),
  }
}

/**
 * A Kernel with the whole set of shared services, opened as the gateway opens them (SQLite or
 * PostgreSQL, memory or Redis, per `stores`). Close it when done.
 */
export async function makeServedKernel(
  overrides: Omit<KernelOverrides, 'services'> & { stores?: Partial<StoresConfig> } = {},
): Promise<{ kernel: Kernel; services: KernelServices; close(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-harness-'))
  const deployment = loadDeployment({
    configDir: overrides.configDir ?? defaultConfigDir,
    pipelinesDir: defaultPipelinesDir,
    dataDir,
    server: { stores: { ...overrides.stores } as StoresConfig },
  })
  const log = createLogger({ level: 'debug', sink: { write: (line) => void harnessLogs.push(line) } })
  const services = await openServices(deployment, {
    env: {},
    log,
    now: overrides.now,
    announce: () => undefined,
    domains: [queryDomain],
  })
  const kernel = makeKernel({ ...overrides, services })
  return {
    kernel,
    services,
    async close() {
      // As at shutdown: the plugins' states first (they flush through the services), then the services.
      await closePluginStates(kernel)
      await services.close()
    },
  }
}

/**
 * The plugins' states of each kernel the harness set plugins up on: a plugin's `open` runs once
 * per kernel, so that runs on one kernel share its ledger, queues or store, as the routes of a
 * gateway do.
 */
const pluginStates = new WeakMap<Kernel, PluginStates>()

function statesOf(kernel: Kernel): PluginStates {
  let states = pluginStates.get(kernel)
  if (!states) pluginStates.set(kernel, (states = new PluginStates()))
  return states
}

/** What a plugin's `open` made on this kernel (opened now if no run has yet): its ledger, queues, store. */
export function stateOf<State>(plugin: PluginDefinition<unknown, JSONSchema, State>, kernel: Kernel): Promise<State> {
  return statesOf(kernel).of(plugin as AnyPlugin, kernel) as Promise<State>
}

/** Closes the plugins' states opened on this kernel, as the gateway does at shutdown. */
export async function closePluginStates(kernel: Kernel): Promise<void> {
  await pluginStates.get(kernel)?.close(kernel.log)
  pluginStates.delete(kernel)
}

/** A copy of the embedded default config folder with some files replaced: `{ 'keys.yaml': '...' }`. */
export function configDirWith(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-config-'))
  for (const f of fs.readdirSync(defaultConfigDir)) {
    const src = path.join(defaultConfigDir, f)
    if (fs.statSync(src).isFile()) fs.copyFileSync(src, path.join(dir, f))
  }
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text)
  return dir
}

export interface Scenario {
  body?: unknown
  headers?: Record<string, string>
  principal?: Principal
  state?: ExchangeState
  params?: Record<string, string>
  query?: string
  transport?: Transport
  method?: string
  path?: string
  /** A raw request body, offered as `ex.incoming` (routes declared `body: raw`). */
  incoming?: Buffer | string
  /** The fake next step: may set `ex.reply` (default: a 200 JSON `{ok: true}` unless a reply is set). */
  next?: (ex: Exchange) => void | Promise<void>
  kernel?: Kernel
  /**
   * What a request may cost (`ex.usage.demand()`), as the route's model-reaching step would say.
   * Default: a chat route's (the fake next step stands in for a chat backend).
   */
  demand?: DemandOf
  /** Read a streamed reply to its end (default true). */
  drain?: boolean
  timeoutMs?: number
  /** The pipeline's `errors:` setting, with which `Run.rendered` renders a thrown error. */
  errors?: ErrorsSetting
}

export interface Run {
  ex: Exchange
  /** The reply as the client would see it, or undefined when the plugin threw. */
  reply?: Reply
  /** The error the plugin threw (what the kernel would render). */
  error?: GatewayError
  /** That error as the kernel's boundary puts it on the wire, in the scenario's error style. */
  rendered?: RenderedError
  /** Events of a streamed reply, after the plugin's chunk phase. */
  events?: StreamEvent[]
  /** The outcome passed to finish. */
  outcome?: Outcome
  /** Whether the fake next step ran. */
  nextCalled: boolean
}

/** Validates options exactly as the loader does; throws with the reason when they are bad. */
/** The error a load throws, as text ('' when it loads). */
export async function loadError(load: () => Promise<unknown>): Promise<string> {
  try {
    await load()
    return ''
  } catch (err) {
    return String(err)
  }
}

export async function setupPlugin<C>(
  plugin: PluginDefinition<C>,
  options: unknown = {},
  kernel: Kernel = makeKernel(),
): Promise<Phases> {
  const checked = checkOptions(plugin as AnyPlugin, options)
  if (!checked.ok) throw new Error(`bad options: ${checked.reason}`)
  // Opened once per kernel, as the loader opens it once per process (closePluginStates closes it).
  const state = await statesOf(kernel).of(plugin as AnyPlugin, kernel)
  return (plugin as AnyPlugin).setup(checked.options, kernel, state, {
    pipeline: 'test',
    route: 'test',
    file: 'harness',
  })
}

/** An IncomingBody over a buffer, with the same limit rule as the HTTP transport. */
function bufferBody(data: Buffer | string, defaultLimit: number, contentType: string | undefined): IncomingBody {
  const buf = typeof data === 'string' ? Buffer.from(data) : data
  return {
    contentType,
    contentLength: buf.length,
    async read(limit = defaultLimit) {
      if (buf.length > limit) throw tooLarge()
      return buf
    },
    async *stream() {
      yield buf
    },
  }
}

export async function runPlugin<C>(
  plugin: PluginDefinition<C>,
  options: unknown,
  scenario: Scenario = {},
): Promise<Run> {
  if (!scenario.kernel) {
    // A kernel of this run alone: the plugin's state closes when the run is over (not while a
    // stream the test left unread may still use it).
    const own = makeKernel()
    let run: Run | undefined
    try {
      run = await runPlugin(plugin, options, { ...scenario, kernel: own })
      return run
    } finally {
      if (!(run?.reply?.kind === 'events' && scenario.drain === false)) await closePluginStates(own)
    }
  }
  const kernel = scenario.kernel
  const phases = await setupPlugin(plugin, options, kernel)
  let nextCalled = false
  let outcome: Outcome | undefined
  const fake: Phases = {
    async request(ex) {
      nextCalled = true
      if (scenario.next) await scenario.next(ex)
      // A plugin that answers before calling next keeps its reply.
      else ex.reply ??= { kind: 'json', status: 200, body: { ok: true } }
    },
  }
  const spy: Phases = { finish: (_ex, o) => void (outcome = o) }
  const route: LoadedRoute = {
    info: { id: 'test', pipeline: 'test', file: 'harness' },
    internal: false,
    body: { kind: 'json' },
    errors: errorStyle(scenario.errors),
    steps: [
      { name: 'outcome', index: 0, phases: spy },
      { name: plugin.name, index: 1, phases },
      { name: 'next', index: 2, phases: fake },
    ],
    chunkSteps: phases.chunk ? [{ name: plugin.name, index: 1, phases }] : [],
  }
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(scenario.headers ?? {})) headers[k.toLowerCase()] = v
  const ex = createExchange({
    route: route.info,
    transport: scenario.transport ?? 'http',
    method: scenario.method ?? 'POST',
    path: scenario.path ?? '/test',
    incoming:
      scenario.incoming === undefined
        ? undefined
        : bufferBody(scenario.incoming, kernel.config.server.body_limit_bytes, headers['content-type']),
    params: scenario.params,
    query: new URLSearchParams(scenario.query ?? ''),
    headers,
    body: scenario.body,
    principal: scenario.principal,
    headerPrefix: kernel.config.server.header_prefix,
    timeoutMs: scenario.timeoutMs ?? 60_000,
    log: kernel.log,
    now: kernel.now(),
    demand: scenario.demand ?? chatRouteDemand,
  })
  Object.assign(ex.state, scenario.state ?? {})
  checkRequires(plugin as AnyPlugin, ex)
  // The kernel's own lifecycle, in-process; over HTTP the reply's headers leave with the reply, and
  // later changes throw, here as there (sealed).
  const call = new InProcessCall(ex, true)
  void runExchange(route, ex, call, {}).catch(call.failed)
  let result: InProcessResult
  try {
    result = await call.result
  } catch (err) {
    failOnFinishErrors(call)
    const error = toGatewayError(err)
    return { ex, error, rendered: route.errors(error), outcome, nextCalled }
  }
  // As the client would see it: a stream through the chunk phases, whose end runs the finish phases.
  const reply = result.reply
  let events: StreamEvent[] | undefined
  let error: GatewayError | undefined
  if (reply.kind === 'events' && scenario.drain !== false) {
    events = []
    try {
      for await (const e of reply.events) events.push(e)
    } catch (err) {
      error = toGatewayError(err)
    }
  }
  ex.settle()
  failOnFinishErrors(call)
  return { ex, reply, events, error, outcome, nextCalled }
}

/**
 * The loader refuses a route whose earlier steps do not provide what a plugin `requires`; the
 * harness refuses a scenario whose state does not, so a test cannot run a plugin on less than
 * production would give it.
 */
function checkRequires(plugin: AnyPlugin, ex: Exchange): void {
  for (const slot of plugin.requires ?? []) {
    const present =
      slot === 'principal' ? ex.principal !== undefined : (ex.state as Record<string, unknown>)[slot] !== undefined
    if (!present)
      throw new Error(
        `harness: ${plugin.name} requires '${slot}', which the scenario does not provide (pass it in scenario.${slot === 'principal' ? 'principal' : `state.${slot}`})`,
      )
  }
}

/** The kernel logs an error thrown in `finish` and goes on; in a plugin's test it is a failure. */
function failOnFinishErrors(call: InProcessCall): void {
  const first = call.finishErrors?.[0]
  if (first)
    throw new Error(
      `harness: the finish phase of ${first.step} threw: ${first.error instanceof Error ? first.error.message : String(first.error)}`,
      { cause: first.error },
    )
}

/** A chat route's demand, as the backend step makes it. */
const chatRouteDemand: DemandOf = (ex) =>
  chatDemand(ex.body, { perMessage: TOKENS_PER_MESSAGE, perImage: ex.state.model?.model.tokens_per_image ?? 1024 })

/** What a fake model step does: it reached `model` and the server reported these tokens. */
export function answeredWith(
  ex: Exchange,
  model: string,
  usage: { prompt: number; completion: number; cached?: number; upstreamModel?: string },
): void {
  ex.usage.model = model
  ex.usage.upstreamModel = usage.upstreamModel
  ex.usage.firstTokenAt ??= ex.startedAt
  ex.usage.report({ inputTokens: usage.prompt, outputTokens: usage.completion, cachedTokens: usage.cached ?? 0 })
}
