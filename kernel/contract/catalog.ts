/** What plugins see of the model catalog (implemented by catalog.ts). */
import type { BackendConfig, FamilyConfig, ModelConfig } from '../../schemas/models.schema.js'

/** The model catalog: names, families, upstream names, retirement. */
export interface Catalog {
  readonly defaultModel: string
  model(id: string): ModelConfig | undefined
  family(id: string): FamilyConfig | undefined
  /** Catalog model whose model server reports this name in `model`. */
  byReportedName(name: string): ModelConfig | undefined
  models(): readonly ModelConfig[]
  families(): readonly FamilyConfig[]
  backend(name: string): (BackendConfig & { name: string; baseUrl: string }) | undefined
  /**
   * Whether the caller (`ex.principal`) may use a model asked for by any of these names (the
   * name sent, the catalog id, the family): its group must permit one of them, and so must the
   * key's own `models` when it has them. No caller: yes; a group the key store does not know: no.
   */
  permits(caller: PermitCaller | undefined, names: readonly string[]): boolean
}

/** Who asks: the caller's group and, when a key made the request, its id (a Principal is one). */
export interface PermitCaller {
  readonly group: string
  readonly keyId?: string
}

/** What the model's server reports in `model`: reported_name, else served_name, else the id. */
export function reportedNameOf(model: ModelConfig): string {
  return model.reported_name ?? model.served_name ?? model.id
}
