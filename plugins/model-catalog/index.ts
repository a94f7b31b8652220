/**
 * model-catalog: GET /models and GET /models/{id}. A family name returns the family's entry;
 * the name a model server reports in `model` maps back to its catalog entry. Models past
 * their retire_at are left out of the list but can still be retrieved.
 */
import { GatewayError, definePlugin, reply } from '../../kernel/contract/index.js'
import { configSchema } from './schema.js'
import { familyEntry, modelEntry, type ModelEntry } from './entry.js'

export default definePlugin({
  name: 'model-catalog',
  config: configSchema,
  setup(config, kernel) {
    const ownedBy = config.owned_by
    const retired = (retireAt: string | undefined) => retireAt !== undefined && Date.parse(retireAt) <= kernel.now()
    const list = (): ModelEntry[] => {
      const { catalog } = kernel
      const entries = catalog
        .models()
        .filter((m) => !retired(m.retire_at))
        .map((m) => modelEntry(m, ownedBy))
      for (const f of catalog.families())
        entries.push(familyEntry(f, catalog.model(f.members[f.default_level])!, ownedBy))
      return entries
    }
    const retrieve = (id: string): ModelEntry => {
      const { catalog } = kernel
      const family = catalog.family(id)
      if (family) return familyEntry(family, catalog.model(family.members[family.default_level])!, ownedBy)
      const model = catalog.model(id) ?? catalog.byReportedName(id)
      if (!model) throw new GatewayError(404, `model ${id} is not registered`)
      return modelEntry(model, ownedBy)
    }
    return {
      async request(ex) {
        if (config.action === 'retrieve') ex.reply = reply.json(retrieve(ex.params.id ?? ''))
        else ex.reply = reply.json({ object: 'list', data: list() })
      },
    }
  },
})
