/**
 * What the fuzzer drives: a target is one HTTP route of the loaded generation, a door is one
 * kind of input (JSON, multipart, XML, audio headers, paths, WebSocket frames). A door is a small
 * table entry (doors.ts): which routes its format belongs to, and how to make input `n` for a
 * target from a seeded generator.
 */
import type { FuzzRandom } from './random.js'

export interface Target {
  readonly routeId: string
  readonly pipeline: string
  readonly method: string
  /** The route's path in the router's syntax, prefix included: `/v1/models/:id+`. */
  readonly pattern: string
  /** The route's body: parsed JSON (with a schema name or none), read by a plugin, or none. */
  readonly body: { kind: 'json'; schema?: string } | { kind: 'raw' } | { kind: 'none' }
  /** How the route renders errors: the OpenAI body, or SOAP 1.1 faults. */
  readonly errors: 'openai' | 'soap'
}

export interface FuzzInput {
  /** What was done, in a few words, for the report and a failure message. */
  readonly mutation: string
  /** The method, when not the route's own. */
  readonly method?: string
  /** The path with its query, when not the route's with plausible parameters. */
  readonly path?: string
  readonly contentType?: string
  readonly body?: Buffer
}

export interface Door {
  readonly name: string
  /** Why this door sends nothing (a transport the gateway does not serve yet). */
  readonly skip?: string
  /** The routes whose format this is: most of the door's inputs go there, the rest to any route. */
  home(target: Target): boolean
  make(rng: FuzzRandom, target: Target, index: number): FuzzInput
}
