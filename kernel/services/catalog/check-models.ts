/**
 * The catalog's consistency rules over models.yaml, beyond its schema: every model's backend
 * exists, every family member, replacement, helper and fallback model is a model, reasoning
 * levels and retirement are complete, only embedding models say how long their vectors are, and
 * fallbacks are of the model's own type and never lead back to it. Checked at load, so a
 * catalog that cannot answer never serves.
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
  checkFallbacks(file, models)
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

/**
 * `fallbacks`: each a model (not a family: the answer must come from one known entry), not the
 * model itself, of its model_type (an embedding model's also of its dimensions: vectors of
 * another length cannot stand in), and no chain of fallbacks leads back to where it started.
 */
function checkFallbacks(file: string, models: ModelsFile): void {
  const byId = new Map(models.models.map((m) => [m.id, m]))
  for (const m of models.models) {
    for (const id of m.fallbacks ?? []) {
      const f = byId.get(id)
      const where = `${file}: model ${m.id}: fallback ${id}`
      if (id === m.id) throw new ConfigError(`${where} is the model itself`)
      if (!f) throw new ConfigError(`${where} is not a model`)
      if (f.model_type !== m.model_type)
        throw new ConfigError(`${where} is a ${f.model_type} model, not ${m.model_type} like ${m.id}`)
      if (m.model_type === 'embedding' && f.dimensions !== m.dimensions)
        throw new ConfigError(
          `${where} makes vectors of ${f.dimensions ?? 'unstated'} dimensions, not ${m.dimensions ?? 'unstated'} like ${m.id}`,
        )
    }
  }
  // Depth-first over the fallback edges: a model met again on the current path closes a cycle.
  const done = new Set<string>()
  const path: string[] = []
  const visit = (id: string): void => {
    const at = path.indexOf(id)
    if (at >= 0) throw new ConfigError(`${file}: fallbacks form a cycle: ${[...path.slice(at), id].join(' → ')}`)
    if (done.has(id)) return
    path.push(id)
    for (const next of byId.get(id)?.fallbacks ?? []) visit(next)
    path.pop()
    done.add(id)
  }
  for (const m of models.models) visit(m.id)
}
