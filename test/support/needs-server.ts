/**
 * A uvu suite that needs the real Redis or PostgreSQL, registered as it should be counted.
 * services.ts has probed both servers before any suite is defined, so:
 * - every server the suite needs answered: the suite as written;
 * - one did not, under CI=true: every test of the suite fails, naming the server and where;
 * - one did not, elsewhere: every test is registered with `skip` (uvu counts it skipped), and
 *   the suite prints one line saying why.
 * A suite that does not run drops its hooks, so nothing tries to connect. (A test body that
 * returns early when a server is missing is counted as passed: that is what this replaces.)
 */
import { suite, type Callback, type Test } from 'uvu'
import { answered, serverAt, type Server } from './services.js'

export function suiteNeeding(servers: readonly Server[], name: string): Test {
  const real = suite(name)
  const missing = servers.filter((s) => !answered[s])
  if (missing.length === 0) return real
  const why = missing.map((s) => `${serverAt(s)} is not reachable`).join('; ')
  const underCi = process.env.CI === 'true'
  const register = underCi
    ? (title: string) =>
        real(title, () => {
          throw new Error(`${why}; CI needs it`)
        })
    : (title: string, test?: Callback) => real.skip(title, test)
  // uvu runs a suite's before hooks even when it has no test to run: the reason lands beside its name.
  if (!underCi)
    real.before(
      () => void process.stdout.write(`(skipped: ${why}; start it, or run under CI=true to make this a failure) `),
    )
  const dropped = Object.assign((_hook: Callback) => undefined, { each: (_hook: Callback) => undefined })
  return Object.assign((title: string, test: Callback) => register(title, test), {
    only: register,
    skip: real.skip,
    before: dropped,
    after: dropped,
    run: real.run,
  })
}
