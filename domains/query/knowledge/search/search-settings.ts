/**
 * The legs and fusion of one search, from its layers, most specific first: the request (the
 * knowledge search body, or the Query service's `search_params` over the project's defaults),
 * the collection's settings (server.yaml `knowledge.retrieval.collections`, `project/name`
 * before `name`), the deployment's (`knowledge.retrieval`), then DEFAULT_FUSION and `hybrid`.
 * Objects merge field by field, so a request can change one weight and keep the rest.
 */
import { GatewayError } from '../../../../kernel/contract/index.js'
import type { FusionSetting, LegsSetting, RetrievalSettingsConfig } from '../../../../schemas/retrieval.schema.js'
import { resolveFusion, type Fusion, type FusionOptions } from '../fusion.js'

export interface SearchSettings {
  readonly legs: LegsSetting
  readonly fusion: Fusion
}

/** The wire shape (`weights: {lexical, vector}`) as fusion.ts takes it. */
function options(f: FusionSetting | undefined): FusionOptions | undefined {
  if (!f) return undefined
  return {
    method: f.method,
    k: f.k,
    lexicalWeight: f.weights?.lexical,
    vectorWeight: f.weights?.vector,
    adaptive: f.adaptive,
  }
}

export function searchSettings(
  retrieval: RetrievalSettingsConfig | undefined,
  project: string,
  collection: string,
  request: { readonly legs?: LegsSetting; readonly fusion?: FusionSetting },
): SearchSettings {
  // Own keys only: a collection may be named `constructor` or `__proto__`.
  const collections = retrieval?.collections ?? {}
  const setting = (key: string) => (Object.hasOwn(collections, key) ? collections[key] : undefined)
  const own = setting(`${project}/${collection}`)
  const named = setting(collection)
  const layers = [request, own, named, retrieval]
  const fusion = resolveFusion(...layers.map((l) => options(l?.fusion)))
  if (fusion.lexicalWeight === 0 && fusion.vectorWeight === 0)
    throw new GatewayError(
      400,
      'fusion.weights: lexical and vector cannot both be 0 (with the collection and deployment settings applied)',
      { code: 'invalid_request' },
    )
  return { legs: layers.find((l) => l?.legs !== undefined)?.legs ?? 'hybrid', fusion }
}
