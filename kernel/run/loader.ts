/**
 * The pipeline loader. All or nothing: every file is parsed and validated (the pipeline schema,
 * then each step's options against its plugin's schema through the one ajv instance), every
 * `requires` is checked against the order of steps, and only then are the plugins set up.
 * Any error stops the load with the file, the route, the step and the reason.
 */
import path from 'node:path'
import { describeErrors, validatorFor } from '../contract/ajv.js'
import { readYaml } from './config.js'
import { ConfigError } from '../contract/errors.js'
import { pipelineSchema, type PipelineFile, type RouteConfig } from '../../schemas/pipeline.schema.js'
import type { Kernel } from '../contract/kernel.js'
import { METERS, type AnyPlugin, type Meter, type Phases } from '../contract/plugin.js'
import type { PluginRegistry } from './registry.js'
import type { PluginStates } from './plugin-states.js'
import type { BodyMode, LoadedRoute, LoadedStep } from './route.js'
import { describeCause } from '../contract/log.js'
import { errorStyle } from '../transports/error-styles.js'
import { corsPolicy } from '../../protocols/http/cors.js'

/**
 * Why a pipeline did not load, as a stable code (tests and tools match on it, never on the
 * message, which may be reworded).
 */
export type PipelineErrorCode =
  | 'PIPELINE_INVALID' // the document fails the pipeline schema
  | 'ROUTE_NO_TRANSPORT' // neither `http:` nor `internal: true`
  | 'UNKNOWN_PLUGIN'
  | 'BAD_OPTIONS' // a step's options fail its plugin's schema
  | 'REQUIRES_UNMET' // a `requires` slot no earlier step provides
  | 'UNMETERED' // a model-reaching step without budget, queue or records before it
  | 'TWO_MODEL_STEPS'
  | 'UNKNOWN_BODY_SCHEMA'
  | 'DUPLICATE_ROUTE_ID'
  | 'DUPLICATE_PATH'
  | 'OPEN_FAILED' // a plugin's `open` threw (its state is opened once per process, at its first load)
  | 'SETUP_FAILED'

export class PipelineError extends ConfigError {
  declare readonly code: PipelineErrorCode

  constructor(
    code: PipelineErrorCode,
    readonly file: string,
    readonly route: string | undefined,
    readonly step: string | undefined,
    readonly reason: string,
  ) {
    super(
      [file, route && `route ${route}`, step && `step ${step}`, `${reason} [${code}]`].filter(Boolean).join(': '),
      code,
    )
    this.name = 'PipelineError'
  }
}

interface PlannedStep {
  name: string
  plugin: AnyPlugin
  options: unknown
}

interface PlannedRoute {
  file: string
  pipeline: PipelineFile
  config: RouteConfig
  steps: PlannedStep[]
  body: BodyMode
}

export interface LoadedPipelines {
  readonly routes: ReadonlyMap<string, LoadedRoute>
  close(): Promise<void>
}

/**
 * Validates a step's options against its plugin's schema (defaults applied, on a copy): the
 * one path used by the loader and by the isolation harness.
 */
export function checkOptions(
  plugin: AnyPlugin,
  raw: unknown,
): { ok: true; options: unknown } | { ok: false; reason: string } {
  const options = structuredClone(raw ?? {})
  const check = validatorFor(plugin.config as object)
  if (!check(options)) return { ok: false, reason: describeErrors(check.errors) }
  return { ok: true, options }
}

/** Parses the step forms `name` and `{name: options}`. */
function stepParts(step: RouteConfig['steps'][number]): [string, unknown] {
  if (typeof step === 'string') return [step, {}]
  const [name, options] = Object.entries(step)[0]!
  return [name, options ?? {}]
}

/** A PipelineError of one file: the route and step, when known, name where. */
type Refuse = (code: PipelineErrorCode, reason: string, route?: string, step?: string) => PipelineError

function planFile(
  file: string,
  registry: PluginRegistry,
  bodySchemas: Readonly<Record<string, object>>,
): PlannedRoute[] {
  const refuse: Refuse = (code, reason, route, step) => new PipelineError(code, file, route, step, reason)
  const doc = readYaml(file)
  const validate = validatorFor(pipelineSchema)
  if (!validate(doc)) throw refuse('PIPELINE_INVALID', describeErrors(validate.errors))
  const pipeline = doc as unknown as PipelineFile
  return pipeline.routes.map((route) => {
    if (!route.http && !route.ws && !route.internal)
      throw refuse('ROUTE_NO_TRANSPORT', 'needs `http: METHOD /path`, `ws: /path` or `internal: true`', route.id)
    const provided = new Set<string>()
    const steps = route.steps.map((raw, i) => {
      const [name, rawOptions] = stepParts(raw)
      const label = `${i + 1} (${name})`
      const plugin = registry.get(name)
      if (!plugin)
        throw refuse(
          'UNKNOWN_PLUGIN',
          `unknown plugin '${name}' (known: ${registry.names().join(', ')})`,
          route.id,
          label,
        )
      const checked = checkOptions(plugin, rawOptions)
      if (!checked.ok) throw refuse('BAD_OPTIONS', `bad options: ${checked.reason}`, route.id, label)
      for (const slot of plugin.requires ?? [])
        if (!provided.has(slot))
          throw refuse('REQUIRES_UNMET', `requires '${slot}', which no earlier step provides`, route.id, label)
      for (const slot of plugin.provides ?? [plugin.name]) provided.add(slot)
      return { name, plugin, options: checked.options }
    })
    checkMetered(steps, (code, reason, step) => refuse(code, reason, route.id, step))
    let body: BodyMode = { kind: 'none' }
    if (route.body === 'raw') body = { kind: 'raw' }
    else if (route.body === 'json') body = { kind: 'json' }
    else if (route.body) {
      const schema = bodySchemas[route.body]
      const known = `${Object.keys(bodySchemas).sort().join(', ')}, json, raw`
      if (!schema)
        throw refuse('UNKNOWN_BODY_SCHEMA', `unknown body schema '${route.body}' (known: ${known})`, route.id)
      body = { kind: 'json', validate: validatorFor(schema), schema: route.body }
    }
    return { file, pipeline, config: route, steps, body }
  })
}

/**
 * Usage is a kernel fact, and metering is by construction: a step that reaches a model server
 * needs a budget, a queue and a records step before it, and a route has at most one such step
 * (its `demand` is the route's).
 */
function checkMetered(
  steps: readonly PlannedStep[],
  refuse: (code: PipelineErrorCode, reason: string, step: string) => PipelineError,
): void {
  const seen = new Set<Meter>()
  let reaching: string | undefined
  for (const [i, s] of steps.entries()) {
    if (s.plugin.meters) seen.add(s.plugin.meters)
    if (!s.plugin.reachesModel) continue
    const label = `${i + 1} (${s.name})`
    if (reaching)
      throw refuse('TWO_MODEL_STEPS', `a route reaches a model in one step only; ${reaching} does too`, label)
    reaching = label
    const missing = METERS.filter((m) => !seen.has(m))
    if (missing.length > 0)
      throw refuse(
        'UNMETERED',
        `reaches a model server, but no earlier step meters its ${missing.join(', ')} (every model-reaching route is budgeted, queued and recorded: add ${missing.map((m) => meterPlugins[m]).join(', ')})`,
        label,
      )
  }
}

const meterPlugins: Record<Meter, string> = { budget: 'budget', queue: 'fair-queue', records: 'usage-records' }

/** Translates a route path to the router's syntax: `:name+` (may hold slashes) → `*name`. */
function routerPath(prefix: string, p: string): string {
  return (prefix + p).replace(/:([A-Za-z_][A-Za-z0-9_]*)\+/g, '*$1')
}

export async function loadPipelines(options: {
  pipelinesDir: string
  files: readonly string[]
  registry: PluginRegistry
  bodySchemas: Readonly<Record<string, object>>
  kernel: Kernel
  /** The process's plugin states: a plugin's `open` runs at its first load only. */
  states: PluginStates
}): Promise<LoadedPipelines> {
  const planned: PlannedRoute[] = []
  const seen = new Map<string, string>()
  const paths = new Map<string, string>()
  for (const name of options.files) {
    const file = path.resolve(options.pipelinesDir, name)
    for (const route of planFile(file, options.registry, options.bodySchemas)) {
      const id = route.config.id
      const other = seen.get(id)
      if (other) throw new PipelineError('DUPLICATE_ROUTE_ID', file, id, undefined, `route id already used in ${other}`)
      seen.set(id, file)
      if (route.config.http) {
        const key = route.config.http.replace(' ', ' ' + (route.pipeline.prefix ?? ''))
        const otherPath = paths.get(key)
        if (otherPath)
          throw new PipelineError(
            'DUPLICATE_PATH',
            file,
            id,
            undefined,
            `${key} is already served by route ${otherPath}`,
          )
        paths.set(key, id)
      }
      planned.push(route)
    }
  }

  // Everything is valid: open the states of plugins used for the first time, then set the
  // plugins up. If one setup fails, close what was set up (states live on with the process).
  const opened: Phases[] = []
  const routes = new Map<string, LoadedRoute>()
  try {
    for (const r of planned) {
      const steps: LoadedStep[] = []
      for (const [index, s] of r.steps.entries()) {
        const failed = (code: 'OPEN_FAILED' | 'SETUP_FAILED', what: string, err: unknown) =>
          new PipelineError(code, r.file, r.config.id, `${index + 1} (${s.name})`, `${what}: ${describeCause(err)}`)
        const state = await options.states.of(s.plugin, options.kernel).catch((err: unknown) => {
          throw failed('OPEN_FAILED', 'open failed', err)
        })
        let phases: Phases
        try {
          const step = { pipeline: r.pipeline.pipeline, route: r.config.id, file: r.file }
          phases = await s.plugin.setup(s.options, options.kernel, state, step)
        } catch (err) {
          throw failed('SETUP_FAILED', 'setup failed', err)
        }
        opened.push(phases)
        steps.push({ name: s.name, index, phases })
      }
      const [method, p] = r.config.http ? r.config.http.split(' ') : [undefined, undefined]
      routes.set(r.config.id, {
        info: { id: r.config.id, pipeline: r.pipeline.pipeline, file: r.file },
        method,
        path: p === undefined ? undefined : routerPath(r.pipeline.prefix ?? '', p),
        prefix: r.pipeline.prefix ?? '',
        internal: r.config.internal ?? false,
        ws:
          r.config.ws === undefined
            ? undefined
            : {
                path: (r.pipeline.prefix ?? '') + r.config.ws,
                match: r.config.match,
                authSteps: r.steps.findIndex((s) => s.plugin.provides?.includes('principal')) + 1,
              },
        body: r.body,
        bodyAt: authenticatedFrom(r.steps),
        bodyLimit: r.config.body_limit_bytes,
        errors: errorStyle(r.pipeline.errors),
        steps,
        chunkSteps: steps.filter((s) => s.phases.chunk).reverse(),
        demand: r.steps.find((s) => s.plugin.reachesModel)?.plugin.reachesModel?.demand,
        cors: r.pipeline.cors && corsPolicy(r.pipeline.cors),
      })
    }
  } catch (err) {
    await closeAll(opened, options.kernel)
    throw err
  }
  return { routes, close: () => closeAll(opened, options.kernel) }
}

async function closeAll(phases: Phases[], kernel: Kernel): Promise<void> {
  for (const p of phases) {
    try {
      await p.close?.()
    } catch (err) {
      kernel.log.error('close phase failed', { cause: describeCause(err) })
    }
  }
}

/**
 * One past the last step that authenticates (provides `principal` or `admin`); 0 when none
 * does. The portal's sign-in, whose key is in the body, reads the body itself and says 400.
 */
function authenticatedFrom(steps: readonly { readonly plugin: AnyPlugin }[]): number {
  let at = 0
  steps.forEach((s, i) => {
    if (s.plugin.provides?.some((slot) => slot === 'principal' || slot === 'admin')) at = i + 1
  })
  return at
}
