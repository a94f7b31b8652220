/**
 * model-catalog: GET /models and GET /models/{id}. A family name returns the family's entry;
 * the name a model server reports in `model` maps back to its catalog entry. Models past
 * their retire_at are left out of the list but can still be retrieved. A caller sees only what
 * its group and key may use (catalog.permits): a name it may not use is listed nowhere, and its
 * entry answers as an unknown name does.
 */
import { GatewayError, definePlugin, reply, type PermitCaller } from '../../kernel/contract/index.js'
import type { FamilyConfig } from '../../schemas/models.schema.js'
import { configSchema } from './schema.js'
import { familyEntry, modelEntry, type ModelEntry } from './entry.js'

export default definePlugin({
  name: 'model-catalog',
  config: configSchema,
  setup(config, kernel) {
    const ownedBy = config.owned_by
    const retired = (retireAt: string | undefined) => retireAt !== undefined && Date.parse(retireAt) <= kernel.now()
    // A family is the caller's when a request for it is permitted at one of its levels at least.
    const familyPermitted = (caller: PermitCaller | undefined, f: FamilyConfig) =>
      Object.values(f.members).some((m) => kernel.catalog.permits(caller, [f.id, m]))
    const list = (caller: PermitCaller | undefined): ModelEntry[] => {
      const { catalog } = kernel
      const entries = catalog
        .models()
        .filter((m) => !retired(m.retire_at) && catalog.permits(caller, [m.id]))
        .map((m) => modelEntry(m, ownedBy))
      for (const f of catalog.families())
        if (familyPermitted(caller, f))
          entries.push(familyEntry(f, catalog.model(f.members[f.default_level])!, ownedBy))
      return entries
    }
    const retrieve = (id: string, caller: PermitCaller | undefined): ModelEntry => {
      const { catalog } = kernel
      const unknown = () => new GatewayError(404, `model ${id} is not registered`)
      const family = catalog.family(id)
      if (family) {
        if (!familyPermitted(caller, family)) throw unknown()
        return familyEntry(family, catalog.model(family.members[family.default_level])!, ownedBy)
      }
      const model = catalog.model(id) ?? catalog.byReportedName(id)
      if (!model || !catalog.permits(caller, [id, model.id])) throw unknown()
      return modelEntry(model, ownedBy)
    }
    return {
      async request(ex) {
        if (config.action === 'retrieve') ex.reply = reply.json(retrieve(ex.params.id ?? '', ex.principal))
        else ex.reply = reply.json({ object: 'list', data: list(ex.principal) })
      },
    }
  },
})
