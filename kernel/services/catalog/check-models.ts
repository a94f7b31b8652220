/**
 * The catalog's consistency rules over models.yaml, beyond its schema: every model's backend
 * exists, every family member, replacement and helper model is a model, reasoning levels and
 * retirement are complete, and only embedding models say how long their vectors are. Checked
 * at load, so a catalog that cannot answer never serves.
 */
import { ConfigError } from '../../contract/errors.js'
import type { ModelsFile } from '../../../schemas/models.schema.js'

export function checkModels(file: string, models: ModelsFile): void {
  const ids = new Set<string>()
  for (const m of models.models) {
    if (ids.has(m.id)) throw new ConfigError(`${file}: model ${m.id} is listed twice`)
    ids.add(m.id)
    if (!models.backends[m.backend])
      throw new ConfigError(`${file}: model ${m.id}: backend '${m.backend}' is not in backends`)
    if (m.reasoning?.mode === 'mapped') {
      const levels = Object.keys(m.reasoning.levels ?? {})
      if (levels.length === 0)
        throw new ConfigError(`${file}: model ${m.id}: reasoning mode mapped needs at least one level`)
      if (m.reasoning.default_level && !levels.includes(m.reasoning.default_level))
        throw new ConfigError(
          `${file}: model ${m.id}: default_level ${m.reasoning.default_level} is not one of its levels`,
        )
    }
    if ((m.dimensions !== undefined || m.supports_dimensions) && m.model_type !== 'embedding')
      throw new ConfigError(`${file}: model ${m.id}: dimensions and supports_dimensions are for embedding models`)
    if ((m.rerank_api !== undefined || m.rerank_path !== undefined) && m.model_type !== 'rerank')
      throw new ConfigError(`${file}: model ${m.id}: rerank_api and rerank_path are for rerank models`)
    if (m.status === 'deprecated' && (!m.replacement || !m.retire_at))
      throw new ConfigError(`${file}: model ${m.id}: a deprecated model needs replacement and retire_at`)
  }
  for (const m of models.models) {
    if (m.replacement && !ids.has(m.replacement))
      throw new ConfigError(`${file}: model ${m.id}: replacement ${m.replacement} is not a model`)
    for (const [name, boon] of Object.entries(m.boons ?? {})) {
      if (boon?.helper_model && !ids.has(boon.helper_model))
        throw new ConfigError(`${file}: model ${m.id}: boon ${name}: helper_model ${boon.helper_model} is not a model`)
      // The helper does the boon's kind of work: an image model draws, a chat model describes.
      const wanted = name === 'image_generation' ? 'image' : 'chat'
      const helper = boon?.helper_model ? models.models.find((h) => h.id === boon.helper_model) : undefined
      if (helper && helper.model_type !== wanted)
        throw new ConfigError(
          `${file}: model ${m.id}: boon ${name}: helper_model ${helper.id} is not ${wanted === 'image' ? 'an' : 'a'} ${wanted} model`,
        )
    }
  }
  for (const f of models.families ?? []) {
    if (ids.has(f.id)) throw new ConfigError(`${file}: family ${f.id} has the name of a model`)
    for (const [level, member] of Object.entries(f.members)) {
      if (!ids.has(member)) throw new ConfigError(`${file}: family ${f.id}: member ${level} → ${member} is not a model`)
    }
  }
  const all = new Set([...ids, ...(models.families ?? []).map((f) => f.id)])
  if (!all.has(models.default_model))
    throw new ConfigError(`${file}: default_model ${models.default_model} is not a model`)
}
