/**
 * Hostile paths and query strings on every route: path parameters that are empty, traversals,
 * invalid percent-encodings, NUL, very long or non-ASCII; query strings with repeated, huge or
 * badly encoded parameters; and the route's path under another method. No value names the demo
 * key or group, so that the admin routes cannot rotate or delete what the run's own requests use.
 */
import type { Target } from './door.js'
import type { FuzzRandom } from './random.js'

export interface PathMutation {
  readonly mutation: string
  readonly method?: string
  readonly path: string
}

/** Path parameter values, already as they go on the wire (percent-encoded where needed). */
const hostileParams = [
  '',
  '%',
  '%zz',
  '%E0%A4',
  '%C0%AF',
  '%00',
  '..',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e',
  'a%2Fb',
  'a/b/c',
  '%FF%FE',
  '%F0%9F%98%80',
  'sim-chat-instruct%00',
  'auto',
  '*',
  'x'.repeat(9_000),
  '%25',
  '%u0041',
  '__proto__',
  'constructor',
]

const queryNames = ['model', 'wsdl', 'by', 'from', 'to', 'key', 'group', 'limit', 'token', 'f', '__proto__']
const queryValues = [
  '',
  '%',
  '%zz',
  '%E0%A4',
  '-1',
  '0',
  '1e999',
  'NaN',
  'x'.repeat(5_000),
  'sim-orpheus',
  'sim-whisper',
  'key',
  'model',
  '2024-13-45',
  '9999999999999999999',
  '%00',
  '[]',
  'a%26b%3Dc',
]

/** The route's pattern with each parameter (`:id`, `:id+`) set to `value`. */
export function fillPattern(pattern: string, value: (name: string) => string): string {
  return pattern.replace(/:([A-Za-z0-9_]+)[+*?]?/g, (_m, name: string) => value(name))
}

export function pathMutation(rng: FuzzRandom, target: Target, plausible: string): PathMutation {
  const hasParam = /:[A-Za-z]/.test(target.pattern)
  const param = hasParam && rng.chance(0.7) ? rng.pick(hostileParams) : plausible
  let path = fillPattern(target.pattern, () => param)
  const what: string[] = []
  if (param !== plausible)
    what.push(`param ${JSON.stringify(param.slice(0, 30))}${param.length > 30 ? `… (${param.length})` : ''}`)
  if (!hasParam || rng.chance(0.6)) {
    const n = rng.size(1, 60)
    const pairs = Array.from({ length: n }, () => `${rng.pick(queryNames)}=${rng.pick(queryValues)}`)
    path += `?${pairs.join('&')}`
    what.push(`${n} query parameters`)
  }
  if (rng.chance(0.15)) path += rng.pick(['/', '//', '/..', '%2F', ';x=1', '#frag'])
  const method = rng.chance(0.2)
    ? rng.pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND'])
    : undefined
  if (method) what.push(`method ${method}`)
  return { mutation: what.join(', ') || 'plausible', method, path }
}
