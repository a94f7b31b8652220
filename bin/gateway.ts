/**
 * The composition root: loads the deployment, starts the embedded model servers (simulator,
 * embedder) when a backend asks for them, builds the first generation, serves HTTP, and handles hot reload (file change
 * and SIGHUP) and graceful shutdown.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import http, { type Server } from 'node:http'
import { reclaimWhenIdle } from './idle-reclaim.js'
import { loadDeployment, type LoadOptions } from '../kernel/run/config.js'
import { Generation } from '../kernel/run/generation.js'
import { openServices } from './open-services.js'
import type { KernelServices } from '../kernel/services/kernel-services.js'
import { createApp, mountRoutes } from '../kernel/transports/server.js'
import { serveWebSockets } from '../kernel/transports/websocket.js'
import { refusalResponse } from '../protocols/http/refusal.js'
import { createLogger, describeCause, type Logger } from '../kernel/contract/log.js'
import type { Announce } from '../kernel/services/keys/demo-secret.js'
import { PluginRegistry } from '../kernel/run/registry.js'
import { PluginStates } from '../kernel/run/plugin-states.js'
import { defaultConfigDir, defaultPipelinesDir } from '../kernel/contract/paths.js'
import { builtinPlugins } from '../plugins/registry.js'
import { builtinDomains } from './domains.js'
import type { DomainDefinition } from '../kernel/contract/domain.js'
import { startEmbeddedServers } from './embedded-servers.js'
import type { SimulatorThread } from '../sim/thread.js'
import type { RunningEmbedder } from '../kernel/services/embedder/index.js'
import type { ServerOverrides } from '../schemas/server.schema.js'
import type { AnyPlugin } from '../kernel/contract/plugin.js'

export interface GatewayOptions {
  configDir?: string
  pipelinesDir?: string
  dataDir?: string
  /** Overrides of server.yaml. */
  server?: ServerOverrides
  env?: NodeJS.ProcessEnv
  log?: Logger
  /** Plugins beyond the built-in ones (third parties, tests). */
  plugins?: AnyPlugin[]
  /** Domains beyond the built-in ones (a third party's product logic), opened after them. */
  domains?: DomainDefinition[]
  /** Clock override (tests of retirement and budgets). */
  now?: () => number
  /** Where the one-time demo key line goes (default stdout). */
  announce?: Announce
  /** Listen for SIGHUP/SIGTERM/SIGINT (the CLI does; tests don't). */
  signals?: boolean
}

export interface RunningGateway {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  readonly url: string
  readonly port: number
  /** The current generation (its services and routes). */
  generation(): Generation
  /** Rebuilds from the files; resolves true when swapped, false when the new set was invalid. */
  reload(): Promise<boolean>
  /** Stops accepting, lets in-flight requests finish within the grace bound, closes plugins. */
  close(): Promise<void>
  /** What the plugins' `open` made (their ledgers, queues, stores), kept across reloads. */
  readonly plugins: PluginStates
  /** The embedded simulator's thread: its URL, its counters (by message). */
  readonly simulator?: SimulatorThread
  /** The in-process embedder, when a backend's url is `embedded-embedder` (tests hang it through it). */
  readonly embedder?: RunningEmbedder
}

export async function startGateway(options: GatewayOptions = {}): Promise<RunningGateway> {
  const env = options.env ?? process.env
  const log = options.log ?? createLogger()
  const load: LoadOptions = {
    configDir: path.resolve(options.configDir ?? env.SLUICE_CONFIG ?? defaultConfigDir),
    pipelinesDir: path.resolve(options.pipelinesDir ?? env.SLUICE_PIPELINES ?? defaultPipelinesDir),
    dataDir: path.resolve(options.dataDir ?? env.SLUICE_DATA ?? './data'),
    server: { ...options.server },
    env,
  }
  if (env.PORT && options.server?.port === undefined) load.server!.port = Number(env.PORT)
  if (env.HOST && options.server?.host === undefined) load.server!.host = env.HOST
  const registry = new PluginRegistry([...(builtinPlugins as AnyPlugin[]), ...(options.plugins ?? [])])

  let deployment = loadDeployment(load)
  // Made once: budgets, queues, buffered records and the key cache outlive every reload.
  const services: KernelServices = await openServices(deployment, {
    env,
    log,
    now: options.now,
    announce: options.announce,
    domains: [...builtinDomains, ...(options.domains ?? [])],
  })
  const embedded = await startEmbeddedServers(deployment, log).catch(async (err: unknown) => {
    await services.close()
    throw err
  })
  // Memory back after a burst, in this thread and the simulator's (bin/idle-reclaim.ts).
  const stopReclaim = reclaimWhenIdle(() => (embedded.simulator ? [embedded.simulator] : []))

  // The plugins' own states (a ledger, the queues, a store): opened at their first load, kept
  // across reloads, closed at shutdown after the last request and before the services they use.
  const plugins = new PluginStates()
  const build = async () =>
    Generation.create({
      deployment,
      registry,
      log,
      env,
      embeddedUrls: embedded.urls,
      now: options.now,
      announce: options.announce,
      services,
      plugins,
    })

  let current: Generation
  try {
    current = await build()
  } catch (err) {
    await embedded.close()
    await plugins.close(log)
    await services.close()
    throw err
  }
  mountRoutes(current)
  const app = createApp({ current: () => current }, log)
  const limits = deployment.server.limits
  // Node checks the header and body timeouts on this interval: a few checks per timeout.
  const server: Server = http.createServer(
    { connectionsCheckingInterval: Math.min(5000, limits.headers_timeout_ms / 4) },
    app.callback(),
  )
  server.on(
    'clientError',
    (err: NodeJS.ErrnoException, socket: Duplex & { _httpMessage?: { headersSent?: boolean } }) => {
      // As Node does: nothing written once a response on the connection has begun; closed either way.
      const answer = refusalResponse(err, `${current.config.server.header_prefix}request-id`, crypto.randomUUID())
      if (answer && socket.writable && !socket._httpMessage?.headersSent) socket.write(answer)
      socket.destroy()
    },
  )
  await new Promise<void>((resolve, reject) => {
    server.listen(deployment.server.port, deployment.server.host, () => resolve())
    server.once('error', reject)
  }).catch(async (err: unknown) => {
    await current.retire(0)
    await embedded.close()
    await plugins.close(log)
    await services.close()
    throw err
  })
  server.keepAliveTimeout = 65_000
  const sockets = serveWebSockets(server, () => current, log)
  // A client that trickles its headers or body holds a socket and a buffer: both are bounded
  // (Node answers 408 and closes). Replies, however long they stream, are not.
  server.headersTimeout = limits.headers_timeout_ms
  server.requestTimeout = limits.body_timeout_ms
  const port = (server.address() as AddressInfo).port
  const url = `http://${deployment.server.host === '0.0.0.0' ? '127.0.0.1' : deployment.server.host}:${port}`
  log.info('gateway listening', { url, routes: current.routes.size })

  // Generations swapped out by a reload but still finishing their requests: shutdown waits for them too.
  const retiring = new Set<Promise<void>>()
  let reloading: Promise<boolean> | undefined
  const reload = async (): Promise<boolean> => {
    // Reloads run one at a time; a change during a reload triggers one more.
    if (reloading) await reloading.catch(() => false)
    reloading = (async () => {
      try {
        deployment = loadDeployment(load)
        const next = await build()
        mountRoutes(next)
        const old = current
        current = next
        log.info('pipelines reloaded', { routes: next.routes.size })
        const retired = old.retire(deployment.server.shutdown_grace_ms)
        retiring.add(retired)
        void retired.finally(() => retiring.delete(retired))
        return true
      } catch (err) {
        log.error('reload refused; the previous pipelines keep serving', { cause: describeCause(err) })
        return false
      }
    })()
    return reloading
  }

  const watchers: fs.FSWatcher[] = []
  if (deployment.server.watch) {
    let timer: NodeJS.Timeout | undefined
    const onChange = () => {
      clearTimeout(timer)
      timer = setTimeout(() => void reload(), 150)
      timer.unref()
    }
    for (const dir of new Set([load.configDir, load.pipelinesDir])) {
      try {
        const w = fs.watch(dir, { persistent: false }, (_event, file) => {
          if (file && /\.ya?ml$/.test(file.toString())) onChange()
        })
        watchers.push(w)
      } catch (err) {
        log.warn('cannot watch folder; use SIGHUP to reload', { dir, cause: describeCause(err) })
      }
    }
  }

  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= (async () => {
      for (const w of watchers) w.close()
      stopReclaim()
      const grace = current.config.server.shutdown_grace_ms
      // Stop accepting; idle keep-alive connections go now.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      sockets.drain()
      // In-flight requests finish (within the grace bound); then every connection left, idle
      // since, is closed rather than waiting for its keep-alive timeout.
      await Promise.all([current.retire(grace), ...retiring])
      sockets.close()
      server.closeAllConnections()
      await closed
      // After the last request: the plugins' states close (a ledger's last settlements go out),
      // then the services (buffered usage records are flushed here).
      await plugins.close(log)
      await services.close()
      await embedded.close()
      log.info('gateway stopped')
    })()
    return closing
  }

  if (options.signals) {
    process.on('SIGHUP', () => void reload())
    const stop = () => void close().then(() => process.exit(0))
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
  }

  return {
    url,
    port,
    generation: () => current,
    reload,
    close,
    plugins,
    simulator: embedded.simulator,
    embedder: embedded.embedder,
  }
}
