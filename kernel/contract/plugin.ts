/**
 * The plugin contract. A plugin is a plain object made by `definePlugin`; its options are
 * validated once, at load, through the kernel's one ajv instance; `open` makes what it keeps for
 * the life of the process (once), and `setup` returns the phases of each route that uses it.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts'
import type { Exchange, ExchangeState, KernelFact, Principal, Slot } from './exchange.js'
import { GatewayError, toGatewayError } from './errors.js'
import type { StreamEvent } from './reply.js'
import type { Kernel } from './kernel.js'
import type { Demand } from './usage.js'

export type Next = () => Promise<void>

/** How a reply ended. Envoy-style: the end is an explicit argument, never a loose boolean. */
export interface Outcome {
  /** `done`: the reply was sent whole. `failed`: an error was sent (or cut a stream). `aborted`: the client went away. */
  readonly kind: 'done' | 'failed' | 'aborted'
  /** HTTP status of the reply (for a failed stream, the status of the in-band error). */
  readonly status: number
  readonly error?: GatewayError
}

/**
 * The phases of one step. `E` is the Exchange as the step sees it: `definePlugin` narrows it by
 * the plugin's `requires` (see `Narrowed`); the loader holds every step's phases as `Phases` of
 * the plain Exchange (method parameters are bivariant, so a narrowed step's phases fit).
 */
export interface Phases<E extends Exchange = Exchange> {
  /** The onion: work before `await next()` runs on the way in, work after it sees the reply. */
  request?(ex: E, next: Next): Promise<void>
  /** Each streamed event on its way out (last step first). Return the event, a replacement, or null to drop it. */
  chunk?(ex: E, event: StreamEvent): StreamEvent | null
  /** Once, after the reply ended, however it ended. Always called for every step that was entered. */
  finish?(ex: E, outcome: Outcome): void | Promise<void>
  /** On reload or shutdown, once the route's last request has finished. */
  close?(): void | Promise<void>
}

/** What a route tells a plugin's `setup` about where it runs. */
export interface StepContext {
  readonly pipeline: string
  readonly route: string
  readonly file: string
}

/**
 * The Exchange as a step that `requires` the slots `R` sees it: those slots (and `principal`,
 * when required) are present, since the loader refuses a route in which no earlier step
 * provides them. Without `requires` (`never`), the plain Exchange.
 */
export type Narrowed<R extends Slot> = [R] extends [never]
  ? Exchange
  : Exchange & {
      readonly state: ExchangeState &
        Required<Pick<ExchangeState, Extract<Exclude<R, KernelFact>, keyof ExchangeState>>>
    } & ('principal' extends R ? { principal: Principal } : unknown)

/** The Exchange of a step's phases: narrowed by `requires`, and `body` typed when the plugin declares its body schema. */
export type StepExchange<R extends Slot, Body = unknown> = unknown extends Body
  ? Narrowed<R>
  : Narrowed<R> & { body: Body }

/** The type of a body schema (json-schema-to-ts); `unknown` without one. */
export type BodyOf<BodySchema> = BodySchema extends JSONSchema ? FromSchema<BodySchema> : unknown

export interface PluginDefinition<
  Config = unknown,
  Schema extends JSONSchema = JSONSchema,
  State = unknown,
  Requires extends Slot = never,
  Body = unknown,
> {
  /** The plugin's one name: its folder, its YAML key and this string are the same kebab-case word. */
  readonly name: string
  /** JSON Schema of the options, `as const`; ajv applies its defaults. */
  readonly config: Schema
  /** Exchange slots that earlier steps of the route must fill; present in the `ex` of the phases. */
  readonly requires?: readonly Slot[]
  /**
   * JSON Schema of the request body the plugin is written for, `as const` (e.g. the chat request
   * schema of schemas/): it types `ex.body` in the phases. The route's `body:` schema validates it.
   */
  readonly body?: JSONSchema
  /** Exchange slots this plugin fills; defaults to `[name]`. */
  readonly provides?: readonly Slot[]
  /**
   * Set by a plugin that calls model servers. Its `demand` says what a request may cost before
   * any model runs (`ex.usage.demand()`). The loader refuses a route that reaches a model
   * without a budget, a queue and a records step before it: metering cannot be forgotten.
   */
  readonly reachesModel?: { readonly demand: DemandOf }
  /** Set by a plugin that meters model calls: one step of each kind must come before a model-reaching step. */
  readonly meters?: Meter
  /**
   * What the plugin keeps across requests and reloads (a ledger, a queue, a store): made once per
   * process, the first time a loaded pipeline uses the plugin, handed to every `setup` since, and
   * closed at shutdown after the last request (when it has a `close` method). A reload does not
   * open it again. `kernel` is the one of the pipelines that first used the plugin: keep what
   * lives as long as the process (log, now, metrics, records, redis, stores, load), not what a
   * reload replaces (config, catalog, keys; read those in `setup` or per request).
   */
  open?(kernel: Kernel): State | Promise<State>
  /** Once per route that uses the plugin, at load: its phases. `state` is what `open` made (undefined without `open`). */
  setup(
    config: Config,
    kernel: Kernel,
    state: State,
    step: StepContext,
  ): Phases<StepExchange<Requires, Body>> | Promise<Phases<StepExchange<Requires, Body>>>
}

/** A model-reaching plugin's estimate of what a request may cost, from its body and state. */
export type DemandOf = (ex: Exchange) => Demand

export type Meter = 'budget' | 'queue' | 'records'
export const METERS: readonly Meter[] = ['budget', 'queue', 'records']

/**
 * The options as `setup` receives them: the type of the config schema (json-schema-to-ts), in
 * which a property with a `default` is present, because ajv has filled it in.
 */
export type ConfigOf<Schema extends JSONSchema> = FromSchema<Schema>

/**
 * Identity function that infers the config type from `config` and the state type from what
 * `open` returns, awaited (no type argument; `undefined` without `open`); the plugin's single
 * export. Both are inferred from those members alone (NoInfer in `setup`): inferring the schema
 * back through json-schema-to-ts from `setup`'s parameter is more than the compiler can do. The
 * slots of `requires` and the `body` schema are inferred the same way, and narrow the `ex` of the phases.
 */
export function definePlugin<
  const Schema extends JSONSchema,
  State = undefined,
  const Requires extends Slot = never,
  const BodySchema extends JSONSchema | undefined = undefined,
>(
  definition: PluginInput<Schema, State, Requires, BodySchema>,
): PluginDefinition<ConfigOf<Schema>, Schema, State, Requires, BodyOf<BodySchema>> {
  // The same object; widened first, because comparing the two through json-schema-to-ts's
  // generic body type is deeper than the compiler goes.
  const plugin: unknown = definition
  return plugin as PluginDefinition<ConfigOf<Schema>, Schema, State, Requires, BodyOf<BodySchema>>
}

/**
 * What definePlugin takes: a definition whose types come from `config`, `requires` and `open`
 * only. The members are one object type, not an intersection with a NoInfer'd whole: the
 * compiler then infers `open`'s state before it types `setup`'s parameters, reading the members
 * in order, even when `open(kernel)` leaves its parameter to be inferred.
 */
type PluginInput<Schema extends JSONSchema, State, Requires extends Slot, BodySchema> = Omit<
  PluginDefinition,
  'config' | 'requires' | 'body' | 'open' | 'setup'
> & {
  readonly config: Schema
  readonly requires?: readonly Requires[]
  readonly body?: BodySchema
  open?(kernel: Kernel): State | Promise<State>
  setup(
    config: NoInfer<ConfigOf<Schema>>,
    kernel: Kernel,
    state: NoInfer<State>,
    step: StepContext,
  ):
    | Phases<StepExchange<Requires, NoInfer<BodyOf<BodySchema>>>>
    | Promise<Phases<StepExchange<Requires, NoInfer<BodyOf<BodySchema>>>>>
}

/** A plugin of any config and state type, as the registry and loader hold it. */
export type AnyPlugin = PluginDefinition<unknown>

/** The state a plugin's `open` makes, as its `setup` receives it (undefined for a plugin without `open`). */
export type StateOf<P> = P extends {
  setup(config: never, kernel: Kernel, state: infer State, step: StepContext): unknown
}
  ? State
  : never

/** The outcome of an error: aborted when the client went away, else failed with its status. */
export function outcomeOf(ex: Exchange, err: unknown): Outcome {
  const error = toGatewayError(err)
  if (ex.signal.aborted && !(ex.signal.reason instanceof GatewayError)) return { kind: 'aborted', status: 499, error }
  return { kind: 'failed', status: error.status, error }
}
