/**
 * admin-groups: groups (tenants) as JSON: the models they may use, their spending budget per
 * term, their per-minute token budget and their weight in the fair queue. A group put here
 * lives in the store and overrides a keys.yaml group of the same id; it applies to the next
 * request. The body is the group as keys.yaml writes it (same schema, same defaults).
 */
import { GatewayError, definePlugin, reply, type Exchange, type GroupRecord } from '../../kernel/contract/index.js'
import type { GroupView } from '../../schemas/admin-response.schema.js'
import { configSchema, type AdminGroupsConfig } from './schema.js'

function groupView(g: GroupRecord): GroupView {
  return {
    id: g.id,
    models: g.config.models ?? ['*'],
    weight: g.config.weight ?? 1,
    budget: g.config.budget ? { amount: g.config.budget.amount, term: g.config.budget.term ?? 'month' } : null,
    tokens_per_minute: g.config.tokens_per_minute ?? null,
    source: g.source,
  }
}

export default definePlugin({
  name: 'admin-groups',
  config: configSchema,
  requires: ['admin'],
  setup(config, kernel) {
    const id = (ex: Exchange) => ex.params.id ?? ''
    const find = (groupId: string) => {
      const group = kernel.keys.groups().find((g) => g.id === groupId)
      if (!group) throw new GatewayError(404, `group ${groupId} does not exist`)
      return group
    }
    const actions: Record<AdminGroupsConfig['action'], (ex: Exchange) => Promise<void>> = {
      async list(ex) {
        ex.reply = reply.json({ object: 'list', data: kernel.keys.groups().map(groupView) })
      },
      async get(ex) {
        ex.reply = reply.json(groupView(find(id(ex))))
      },
      async put(ex) {
        if (!ex.body || typeof ex.body !== 'object' || Array.isArray(ex.body))
          throw new GatewayError(400, 'invalid request: the body must be a group object', { code: 'invalid_request' })
        ex.reply = reply.json(groupView(await kernel.keyAdmin.putGroup(id(ex), ex.body)))
      },
      async delete(ex) {
        await kernel.keyAdmin.deleteGroup(id(ex))
        ex.reply = reply.json({ id: id(ex), deleted: true })
      },
    }
    const run = actions[config.action]
    return {
      async request(ex) {
        await run(ex)
      },
    }
  },
})
