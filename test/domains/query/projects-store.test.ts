/**
 * The Query service's projects and tokens (kernel/services/query/projects-store.ts), run against
 * both stores: SQLite in a fresh data folder and PostgreSQL in a fresh schema. Two instances on
 * one store stand for two replicas: what one writes, the other sees within its refresh period.
 */
import { storesAccess } from '../../../kernel/services/stores/stores-access.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { openProjects } from '../../../domains/query/projects-store.js'
import type { QueryStoreOptions } from '../../../domains/query/query-services.js'
import { createLogger } from '../../../kernel/contract/log.js'
import { hashSecret } from '../../../protocols/credentials/secrets.js'
import { demoSecretDigest } from '../../../kernel/services/keys/demo-secret.js'
import { GatewayError } from '../../../kernel/contract/errors.js'
import { POSTGRES_URL, uniqueName, type Server } from '../../support/services.js'
import { suiteNeeding } from '../../support/needs-server.js'
import { dropSchema } from '../../support/test-stores.js'

type Service = Awaited<ReturnType<typeof openProjects>>

const CONFIG_SECRET = 'qt-config-token-secret'
const projectsFile = {
  projects: {
    cfg: {
      key: 'demo',
      tokens: [{ id: 'cfg-dev', kind: 'developer', hash: `sha256:${hashSecret(CONFIG_SECRET).toString('hex')}` }],
    },
  },
}
const keys = new Set(['demo', 'k1', 'k2'])
const keyExists = (id: string) => keys.has(id)

interface Backend {
  /** The servers it needs (the suite is skipped, or fails under CI, without them). */
  needs: Server[]
  options(): Promise<QueryStoreOptions>
  /** Every byte the store keeps, as text (the secret must be nowhere in it). */
  dump(options: QueryStoreOptions): Promise<string>
  cleanup(options: QueryStoreOptions): Promise<void>
}

function baseOptions(dataDir: string, over: Partial<QueryStoreOptions> = {}): QueryStoreOptions {
  const log = createLogger({ level: 'error', sink: { write: () => undefined } })
  return {
    // Projects open their own pool (postgresUrl); the seam serves the history and upload tables.
    stores: storesAccess({ dataDir }),
    dataDir,
    configDir: dataDir,
    projectsFile,
    postgresSchema: 'public',
    refreshMs: 100,
    env: {},
    log,
    now: Date.now,
    demoSecret: (demo) => demoSecretDigest(demo, { dataDir, env: {}, log, announce: () => undefined }),
    ...over,
  }
}

const sqlite: Backend = {
  needs: [],
  async options() {
    return baseOptions(fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-projects-')))
  },
  async dump(o) {
    return fs
      .readdirSync(o.dataDir)
      .filter((f) => f.startsWith('projects.db'))
      .map((f) => fs.readFileSync(path.join(o.dataDir, f)).toString('latin1'))
      .join('\n')
  },
  async cleanup(o) {
    fs.rmSync(o.dataDir, { recursive: true, force: true })
  },
}

const postgres: Backend = {
  needs: ['postgres'],
  async options() {
    return baseOptions(fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-projects-pg-')), {
      postgresUrl: POSTGRES_URL,
      postgresSchema: uniqueName('sluice_projects'),
    })
  },
  async dump(o) {
    const client = new pg.Client({ connectionString: POSTGRES_URL })
    await client.connect()
    try {
      const projects = await client.query(`SELECT * FROM ${o.postgresSchema}.query_projects`)
      const tokens = await client.query(`SELECT * FROM ${o.postgresSchema}.query_tokens`)
      return JSON.stringify([projects.rows, tokens.rows])
    } finally {
      await client.end()
    }
  },
  async cleanup(o) {
    await dropSchema(o.postgresSchema)
    fs.rmSync(o.dataDir, { recursive: true, force: true })
  },
}

async function failure(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await p
  } catch (err) {
    assert.instance(err, GatewayError)
    return { status: (err as GatewayError).status, message: (err as Error).message }
  }
  throw new Error('expected a failure')
}

async function eventually(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('not seen within the refresh period')
    await new Promise((r) => setTimeout(r, 25))
  }
}

function contract(label: string, backend: Backend): void {
  const test = suiteNeeding(backend.needs, `query projects store: ${label}`)
  let options: QueryStoreOptions | undefined
  let a: Service
  let b: Service
  test.before(async () => {
    options = await backend.options()
    a = await openProjects(options)
    b = await openProjects(options)
  })
  test.after(async () => {
    if (!options) return
    await a.close()
    await b.close()
    await backend.cleanup(options)
  })
  const it = (name: string, fn: (o: QueryStoreOptions) => Promise<void>) => test(name, () => fn(options!))

  it('a project put here is created with its defaults, listed beside the config projects', async () => {
    const made = await a.putProject(
      'p1',
      { key: 'k1', defaults: { model_name: 'sim-chat', enable_search: true }, compare_models: ['sim-chat-thinking'] },
      keyExists,
    )
    assert.equal(
      { ...made, createdAt: 0, updatedAt: 0 },
      {
        id: 'p1',
        keyId: 'k1',
        defaults: { model_name: 'sim-chat', enable_search: true },
        compareModels: ['sim-chat-thinking'],
        source: 'store',
        createdAt: 0,
        updatedAt: 0,
      },
    )
    assert.ok(made.createdAt! > 0)
    assert.equal(
      a.projects().map((p) => [p.id, p.source]),
      [
        ['cfg', 'config'],
        ['p1', 'store'],
      ],
    )
    assert.is(a.project('cfg')?.keyId, 'demo')
  })

  it('a put replaces the project and keeps its creation time', async () => {
    const before = a.project('p1')!
    await new Promise((r) => setTimeout(r, 5))
    const replaced = await a.putProject('p1', { key: 'k2' }, keyExists)
    assert.is(replaced.keyId, 'k2')
    assert.equal(replaced.defaults, {}, 'replaced, not merged')
    assert.equal(replaced.compareModels, [])
    assert.is(replaced.createdAt, before.createdAt)
    assert.ok(replaced.updatedAt! > before.updatedAt!)
  })

  it('a bad body, an unknown key or a bad id is a 400 naming the field, and changes nothing', async () => {
    const temperature = await failure(
      a.putProject('p2', { key: 'k1', defaults: { model_params: { temperature: 3 } } }, keyExists),
    )
    assert.is(temperature.status, 400)
    assert.match(temperature.message, '/defaults/model_params/temperature')
    const tokens = await failure(a.putProject('p2', { key: 'k1', tokens: [] }, keyExists))
    assert.match(tokens.message, "unknown property 'tokens'")
    const missing = await failure(a.putProject('p2', { defaults: {} }, keyExists))
    assert.match(missing.message, "must have required property 'key'")
    const key = await failure(a.putProject('p2', { key: 'nope' }, keyExists))
    assert.equal(key, { status: 400, message: 'invalid request: /key: key nope does not exist' })
    assert.is((await failure(a.putProject('bad id!', { key: 'k1' }, keyExists))).status, 400)
    assert.is(a.project('p2'), undefined)
  })

  it('config projects and their tokens are read-only (409); unknown ones are 404', async () => {
    assert.equal(await failure(a.putProject('cfg', { key: 'k1' }, keyExists)), {
      status: 409,
      message: 'project cfg is defined in config/projects.yaml and is read-only through the admin API',
    })
    assert.is((await failure(a.deleteProject('cfg'))).status, 409)
    assert.is((await failure(a.deleteToken('cfg', 'cfg-dev'))).status, 409)
    assert.equal(await failure(a.deleteProject('ghost')), { status: 404, message: 'project ghost does not exist' })
    assert.is((await failure(a.createToken('ghost', 'developer'))).status, 404)
    assert.is((await failure(a.deleteToken('p1', 'tok-none'))).status, 404)
    assert.is(a.authenticate(CONFIG_SECRET)?.token.id, 'cfg-dev', 'the config token still works')
  })

  it('a token is made with its secret once; only its digest is stored; it authenticates until deleted', async (o) => {
    const made = await a.createToken('p1', 'service')
    assert.match(made.secret, /^qt-[A-Za-z0-9_-]{43}$/)
    assert.is(made.token.kind, 'service')
    const found = a.authenticate(made.secret)
    assert.is(found?.token.id, made.token.id)
    assert.is(found?.project.id, 'p1')
    assert.equal(
      a.tokens('p1').map((t) => t.id),
      [made.token.id],
    )
    const stored = await backend.dump(o)
    assert.not.ok(stored.includes(made.secret), 'the secret is nowhere in the store')
    assert.ok(stored.includes(hashSecret(made.secret).toString('hex')), 'its SHA-256 is')
    // A token may be added to a config project too.
    const extra = await a.createToken('cfg', 'developer')
    assert.is(a.authenticate(extra.secret)?.project.source, 'config')
    assert.equal(
      a.tokens('cfg').map((t) => t.source),
      ['config', 'store'],
    )
    await a.deleteToken('cfg', extra.token.id)
    assert.is(a.authenticate(extra.secret), undefined)
    assert.is(a.authenticate('qt-wrong'), undefined)
  })

  it('replicas: what one instance writes, the other sees within the refresh period', async () => {
    const made = await a.createToken('p1', 'developer')
    await eventually(() => b.authenticate(made.secret)?.token.id === made.token.id)
    await b.putProject('p3', { key: 'k1' }, keyExists)
    await eventually(() => a.project('p3')?.keyId === 'k1')
    await b.deleteToken('p1', made.token.id)
    await eventually(() => a.authenticate(made.secret) === undefined)
  })

  it('deleting a project deletes its tokens', async () => {
    const made = await a.createToken('p3', 'developer')
    await a.deleteProject('p3')
    assert.is(a.project('p3'), undefined)
    assert.is(a.authenticate(made.secret), undefined)
    await a.putProject('p3', { key: 'k1' }, keyExists)
    assert.equal(a.tokens('p3'), [], 'a project made again under the same id has none of the old tokens')
    await eventually(() => b.authenticate(made.secret) === undefined && b.tokens('p3').length === 0)
  })

  test.run()
}

contract('SQLite', sqlite)
contract('PostgreSQL', postgres)
