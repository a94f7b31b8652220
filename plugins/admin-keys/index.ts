/**
 * admin-keys: the keys tab of the operator's portal, as JSON. Lists keys (never secrets),
 * creates a key (its secret is in that one response and nowhere else), switches keys on and
 * off, changes their group and budgets, rotates a secret (a legacy key moves to the current
 * gateway), and deletes keys. Changes live in the store and apply to the next request,
 * without a restart. keys.yaml stays the static seed: changing a seed key here copies it into
 * the store, which wins from then on.
 */
import {
  GatewayError,
  definePlugin,
  describeErrors,
  reply,
  validatorFor,
  type Exchange,
  type KeyChange,
  type KeyRecord,
  type NewKey,
  type TermBudget,
} from '../../kernel/contract/index.js'
import { configSchema, type AdminKeysConfig } from './schema.js'
import { createKeyBody, updateKeyBody } from './bodies.js'

interface KeyBody {
  id?: string
  group?: string
  enabled?: boolean
  legacy?: boolean
  budget?: TermBudget | null
  tokens_per_minute?: number | null
  expires_at?: string | number | null
  models?: string[] | null
  requests_per_minute?: number | null
}

/** A key as the admin API shows it: no secret, no digest. `expired`: past its `expires_at` at `now`. */
function keyView(k: KeyRecord, now: number) {
  return {
    id: k.id,
    group: k.group,
    enabled: k.enabled,
    legacy: k.legacy,
    budget: k.budget ?? null,
    tokens_per_minute: k.tokensPerMinute ?? null,
    expires_at: k.expiresAt === undefined ? null : new Date(k.expiresAt).toISOString(),
    expired: k.expiresAt !== undefined && now >= k.expiresAt,
    models: k.models ?? null,
    requests_per_minute: k.requestsPerMinute ?? null,
    source: k.source,
    created_at: k.createdAt === undefined ? null : new Date(k.createdAt).toISOString(),
    updated_at: k.updatedAt === undefined ? null : new Date(k.updatedAt).toISOString(),
  }
}

function validBody(ex: Exchange, schema: object): KeyBody {
  const body = structuredClone(ex.body ?? {})
  const validate = validatorFor(schema)
  if (!validate(body))
    throw new GatewayError(400, `invalid request: ${describeErrors(validate.errors)}`, { code: 'invalid_request' })
  return body as KeyBody
}

export default definePlugin({
  name: 'admin-keys',
  config: configSchema,
  requires: ['admin'],
  setup(config, kernel) {
    const id = (ex: Exchange) => ex.params.id ?? ''
    const actions: Record<AdminKeysConfig['action'], (ex: Exchange) => Promise<void>> = {
      async list(ex) {
        ex.reply = reply.json({ object: 'list', data: kernel.keys.keys().map((k) => keyView(k, kernel.now())) })
      },
      async get(ex) {
        const key = kernel.keys.key(id(ex))
        if (!key) throw new GatewayError(404, `key ${id(ex)} does not exist`)
        ex.reply = reply.json(keyView(key, kernel.now()))
      },
      async create(ex) {
        const body = validBody(ex, createKeyBody)
        const input: NewKey = {
          id: body.id,
          group: body.group!,
          enabled: body.enabled,
          legacy: body.legacy,
          budget: body.budget ?? undefined,
          tokensPerMinute: body.tokens_per_minute ?? undefined,
          expiresAt: body.expires_at ?? undefined,
          models: body.models ?? undefined,
          requestsPerMinute: body.requests_per_minute ?? undefined,
        }
        const made = await kernel.keyAdmin.createKey(input)
        ex.reply = reply.json({ key: keyView(made.key, kernel.now()), secret: made.secret }, 201)
      },
      async update(ex) {
        const body = validBody(ex, updateKeyBody)
        const change: KeyChange = {
          group: body.group,
          enabled: body.enabled,
          budget: body.budget,
          tokensPerMinute: body.tokens_per_minute,
          expiresAt: body.expires_at,
          models: body.models,
          requestsPerMinute: body.requests_per_minute,
        }
        ex.reply = reply.json(keyView(await kernel.keyAdmin.updateKey(id(ex), change), kernel.now()))
      },
      async rotate(ex) {
        const rotated = await kernel.keyAdmin.rotateKey(id(ex))
        ex.reply = reply.json({ key: keyView(rotated.key, kernel.now()), secret: rotated.secret })
      },
      async delete(ex) {
        await kernel.keyAdmin.deleteKey(id(ex))
        ex.reply = reply.json({ id: id(ex), deleted: true })
      },
    }
    const run = actions[config.action]
    return {
      async request(ex) {
        await run(ex)
        // Secrets must not linger in intermediaries' caches.
        ex.headers.set('cache-control', 'no-store')
      },
    }
  },
})
