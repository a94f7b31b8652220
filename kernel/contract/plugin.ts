/**
 * The plugin contract. A plugin is a plain object made by `definePlugin`; its options are
 * validated once, at load, through the kernel's one ajv instance; `setup` returns the phases.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts'
import type { Exchange, Slot } from './exchange.js'
import type { GatewayError } from './errors.js'
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

export interface Phases {
  /** The onion: work before `await next()` runs on the way in, work after it sees the reply. */
  request?(ex: Exchange, next: Next): Promise<void>
  /** Each streamed event on its way out (last step first). Return the event, a replacement, or null to drop it. */
  chunk?(ex: Exchange, event: StreamEvent): StreamEvent | null
  /** Once, after the reply ended, however it ended. Always called for every step that was entered. */
  finish?(ex: Exchange, outcome: Outcome): void | Promise<void>
  /** On reload or shutdown, once the route's last request has finished. */
  close?(): void | Promise<void>
}

/** What a route tells a plugin's `setup` about where it runs. */
export interface StepContext {
  readonly pipeline: string
  readonly route: string
  readonly file: string
}

export interface PluginDefinition<Config = unknown, Schema extends JSONSchema = JSONSchema> {
  /** The plugin's one name: its folder, its YAML key and this string are the same kebab-case word. */
  readonly name: string
  /** JSON Schema of the options, `as const`; ajv applies its defaults. */
  readonly config: Schema
  /** Exchange slots that earlier steps of the route must fill. */
  readonly requires?: readonly Slot[]
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
  setup(config: Config, kernel: Kernel, step: StepContext): Phases | Promise<Phases>
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
 * Identity function that infers the config type from `config` (no type argument); the plugin's
 * single export. The schema is inferred from `config` alone (NoInfer): inferring it back
 * through json-schema-to-ts from `setup`'s parameter is more than the compiler can do.
 */
export function definePlugin<const Schema extends JSONSchema>(
  definition: NoInfer<PluginDefinition<ConfigOf<Schema>, Schema>> & { readonly config: Schema },
): PluginDefinition<ConfigOf<Schema>, Schema> {
  return definition
}

/** A plugin of any config type, as the registry and loader hold it. */
export type AnyPlugin = PluginDefinition<unknown>
