/**
 * A third party's plugin, from its own package outside the repository: it imports only
 * `sluice/contract`, declares its exchange slot on it, is type-checked and compiled with the
 * repository's tsc, tested alone through `sluice/testing`, and served by a gateway started
 * through the documented entry point (`import { startGateway } from 'sluice'`). Every program
 * of the package runs as its own `node` process, so resolution is what a stranger gets.
 */
import fs from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { thirdPartyPackage, type ThirdPartyPackage } from '../support/third-party-package.js'

const test = suite('e2e third-party plugin: a package of its own, through the exports')

/** The plugin: refuses the `user`s an operator blocked, and marks the requests it lets through. */
const PLUGIN = `import { definePlugin, GatewayError } from 'sluice/contract'

declare module 'sluice/contract' {
  interface ExchangeState {
    userGate?: { user: string | undefined; keyId: string }
  }
}

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    blocked: { type: 'array', items: { type: 'string' }, default: [], description: 'Values of \`user\` that are refused.' },
    header: { type: 'string', minLength: 1, default: 'user-gate', description: 'Response header (after the prefix) on requests let through.' },
  },
} as const

export default definePlugin({
  name: 'user-gate',
  config: configSchema,
  requires: ['principal'],
  provides: ['userGate'],
  setup(config) {
    // Both are present, not optional: the schema's defaults are in the config's type.
    const blocked: ReadonlySet<string> = new Set(config.blocked)
    const header: string = config.header
    return {
      async request(ex, next) {
        const user = (ex.body as { user?: string }).user
        if (user !== undefined && blocked.has(user)) throw new GatewayError(403, \`user \${user} may not use this route\`, { type: 'permission_error' })
        // \`requires: ['principal']\`: the phases see it present, typed so.
        ex.state.userGate = { user, keyId: ex.principal.keyId }
        ex.headers.set(\`\${ex.headerPrefix}\${header}\`, 'passed')
        await next()
      },
    }
  },
})
`

/** Its test, in the same package: `sluice/testing` and `sluice/contract` only. */
const PLUGIN_TEST = `import assert from 'node:assert/strict'
import type { Principal } from 'sluice/contract'
import { runPlugin, setupPlugin } from 'sluice/testing'
import userGate from './user-gate.js'

const principal: Principal = { keyId: 'k1', group: 'demo', legacy: false }

await assert.rejects(setupPlugin(userGate, { blocked: 'mallory' }), /bad options: \\/blocked: must be array/)
await assert.rejects(setupPlugin(userGate, { colour: 'red' }), /bad options: .*unknown property 'colour'/)

const passed = await runPlugin(userGate, {}, { body: { user: 'alice' }, principal })
assert.equal(passed.nextCalled, true)
assert.equal(passed.ex.headers.get('x-gateway-user-gate'), 'passed')
assert.deepEqual(passed.ex.state.userGate, { user: 'alice', keyId: 'k1' })

const refused = await runPlugin(userGate, { blocked: ['mallory'], header: 'gate' }, { body: { user: 'mallory' }, principal })
assert.equal(refused.nextCalled, false)
assert.equal(refused.error?.status, 403)
assert.equal(refused.rendered?.status, 403)
assert.deepEqual(JSON.parse(refused.rendered?.body ?? ''), { error: { message: 'user mallory may not use this route', type: 'permission_error' } })

await assert.rejects(runPlugin(userGate, {}, { body: {} }), /user-gate requires 'principal'/)
process.stdout.write('user-gate: 5 checks passed\\n')
`

/** Its server: the documented entry point, the embedded default config, its own pipeline. */
const SERVE = `import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { startGateway } from 'sluice'
import { createLogger } from 'sluice/contract'
import userGate from './user-gate.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const gateway = await startGateway({
  pipelinesDir: path.join(root, 'pipelines'),
  dataDir: path.join(root, 'data'),
  server: { port: 0, pipelines: ['chat.yaml'], watch: false },
  plugins: [userGate],
  log: createLogger({ level: 'warn' }),
  announce: () => undefined,
})
process.stdout.write(\`READY \${gateway.url}\\n\`)
process.once('SIGTERM', () => void gateway.close().then(() => process.exit(0)))
`

const PIPELINE = `pipeline: chat
prefix: /v1
errors: openai
routes:
  - id: chat
    http: POST /chat/completions
    body: chat-request
    steps:
      - auth
      - user-gate: { blocked: [mallory] }
      - model: { types: [chat] }
      - budget
      - fair-queue
      - usage-records
      - backend: { endpoint: chat }
`

const KEY = 'sk-third-party-demo'
let pkg: ThirdPartyPackage

test.before(() => {
  pkg = thirdPartyPackage('sluice-plugin-user-gate')
  pkg.write('src/user-gate.ts', PLUGIN)
  pkg.write('src/user-gate.test.ts', PLUGIN_TEST)
  pkg.write('src/serve.ts', SERVE)
  pkg.write('pipelines/chat.yaml', PIPELINE)
})
test.after(() => pkg.remove())

test('the package type-checks and compiles against the exports alone', () => {
  const built = pkg.tsc()
  assert.is(built.output, '')
  assert.ok(built.ok)
})

test('a typo in what the contract offers is a compile error in the package', () => {
  pkg.write(
    'src/typo.ts',
    `import { definePlugin } from 'sluice/contract'\nexport default definePlugin({ name: 'typo', config: { type: 'object' } as const, requires: ['userGat'], setup: () => ({}) })\n`,
  )
  const checked = pkg.tsc('--noEmit')
  fs.rmSync(path.join(pkg.dir, 'src', 'typo.ts'))
  // The slot the package declared on 'sluice/contract' is what the compiler suggests.
  assert.match(
    checked.output,
    /src\/typo\.ts\(2,\d+\): error TS2820: Type '"userGat"' is not assignable to type 'Slot'\. Did you mean '"userGate"'\?/,
  )
})

test('a package whose plugin declares no slot of its own type-checks too, declarations included', () => {
  const minimal = thirdPartyPackage('sluice-plugin-minimal')
  try {
    minimal.write(
      'src/index.ts',
      `import { definePlugin } from 'sluice/contract'\nexport default definePlugin({ name: 'minimal', config: { type: 'object', additionalProperties: false, properties: {} } as const, setup: () => ({}) })\n`,
    )
    assert.is(minimal.tsc('--noEmit').output, '')
  } finally {
    minimal.remove()
  }
})

test('its own test runs the plugin alone through sluice/testing', async () => {
  const run = await pkg.run('dist/user-gate.test.js')
  assert.is(run.stderr, '')
  assert.is(run.code, 0)
  assert.match(run.stdout, /user-gate: 5 checks passed/)
})

test('a gateway started through `sluice` serves it on a route, over a real socket', async () => {
  const child = pkg.spawn('dist/serve.js', { SLUICE_DEMO_KEY: KEY })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no READY line: ${stdout}${stderr}`)), 30_000)
      child.stdout!.on('data', () => {
        const m = /READY (http:\/\/\S+)/.exec(stdout)
        if (!m) return
        clearTimeout(timer)
        resolve(m[1]!)
      })
      void exited.then((code) => {
        clearTimeout(timer)
        reject(new Error(`exited ${code}: ${stdout}${stderr}`))
      })
    })
    const chat = (user: string) =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'sim-text-plain',
          messages: [{ role: 'user', content: 'hi' }],
          max_tokens: 3,
          user,
        }),
      })

    const ok = await chat('alice')
    const body = (await ok.json()) as { object?: string; choices?: unknown[] }
    assert.is(ok.status, 200, JSON.stringify(body))
    assert.is(ok.headers.get('x-gateway-user-gate'), 'passed')
    assert.is(body.object, 'chat.completion')
    assert.is(body.choices?.length, 1)

    const refused = await chat('mallory')
    assert.is(refused.status, 403)
    assert.ok(refused.headers.get('x-gateway-request-id'))
    assert.is(refused.headers.get('x-gateway-user-gate'), null)
    assert.equal(await refused.json(), {
      error: { message: 'user mallory may not use this route', type: 'permission_error' },
    })
  } finally {
    child.kill('SIGTERM')
    await exited
  }
})

test.run()
