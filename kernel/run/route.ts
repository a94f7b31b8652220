/** A route as loaded: its steps' phases, set up once, and its body validator, compiled once. */
import type { ValidateFunction } from 'ajv'
import type { DemandOf, Phases } from '../contract/plugin.js'
import type { RouteInfo } from '../contract/exchange.js'
import type { ErrorStyle } from '../transports/error-styles.js'
import type { CorsPolicy } from '../../protocols/http/cors.js'

export interface LoadedStep {
  readonly name: string
  readonly index: number
  readonly phases: Phases
}

export type BodyMode =
  | { readonly kind: 'none' }
  | { readonly kind: 'json'; readonly validate?: ValidateFunction; readonly schema?: string }
  | { readonly kind: 'raw' }

export interface LoadedRoute {
  readonly info: RouteInfo
  readonly method?: string
  /** Full path with the pipeline prefix, in the router's syntax. */
  readonly path?: string
  /** The pipeline's `prefix:` ('' when none): a 404 or 405 under it is rendered in the route's `errors` style. */
  readonly prefix?: string
  readonly internal: boolean
  /** WebSocket path with the prefix; `match` picks this route among the path's; `authSteps` authenticate the upgrade. */
  readonly ws?: {
    readonly path: string
    readonly match?: Readonly<Record<string, string | null>>
    readonly authSteps: number
  }
  readonly body: BodyMode
  /**
   * The step before which a JSON body is read and checked: one past the route's authenticating
   * steps (those providing `principal`), so that a request without a key meets 401 before any
   * 400 of its body. 0 (the default) when nothing authenticates.
   */
  readonly bodyAt?: number
  /** Largest request body (the route's own limit, else the server's). */
  readonly bodyLimit?: number
  /** How the boundary renders this route's errors (the pipeline's `errors:`). */
  readonly errors: ErrorStyle
  readonly steps: readonly LoadedStep[]
  /** Steps with a chunk phase, last first: the order events pass them on the way out. */
  readonly chunkSteps: readonly LoadedStep[]
  /** What a request may cost, from the route's model-reaching step; none when no step reaches a model. */
  readonly demand?: DemandOf
  /** The pipeline's `cors:`, compiled (services/cors). */
  readonly cors?: CorsPolicy
}
