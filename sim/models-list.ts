/** GET /v1/models in vLLM's shape, owned by `sluice-sim` so nobody takes the list for a real server's. */
import type { SimContext } from './sim-context.js'

export function modelsList(sim: SimContext): unknown {
  const created = sim.startedAt
  return {
    object: 'list',
    data: sim.config.models.map((model) => ({
      id: model.name,
      object: 'model',
      created,
      owned_by: 'sluice-sim',
      root: model.name,
      parent: null,
      max_model_len: model.max_model_len,
      permission: [
        {
          id: `modelperm-sim-${model.name}`,
          object: 'model_permission',
          created,
          allow_create_engine: false,
          allow_sampling: true,
          allow_logprobs: true,
          allow_search_indices: false,
          allow_view: true,
          allow_fine_tuning: false,
          organization: '*',
          group: null,
          is_blocking: false,
        },
      ],
    })),
  }
}
