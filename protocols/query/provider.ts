/**
 * `model_provider` and `model_name` → the catalog model asked of the answer route. `gateway`
 * is Sluice's own catalog (a catalog id, a family or `auto`: the model step resolves it, checks
 * the project key's permissions and retirement). Another provider is an OpenAI-compatible
 * endpoint declared as a backend of models.yaml: its `model_name` is a model that backend
 * serves, by catalog id or served name. Either way the call goes through the gateway's route,
 * so it is queued, budgeted and recorded the same.
 */
import { GatewayError, type Catalog } from '../../kernel/contract/index.js'

export type Providers = Readonly<Record<string, { readonly backend?: string }>>

const bad = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })

export function resolveModel(
  catalog: Catalog,
  providers: Providers,
  provider: string,
  name: string | undefined,
): string {
  const p = providers[provider]
  if (!p) throw bad(`unknown model_provider ${provider} (providers: ${Object.keys(providers).join(', ')})`)
  if (name === undefined) throw bad('model_name is required (the project has no default model)')
  if (p.backend === undefined) return name
  const model = catalog.models().find((m) => m.backend === p.backend && (m.id === name || m.served_name === name))
  if (!model) throw bad(`model ${name} is not served by provider ${provider}`)
  return model.id
}
