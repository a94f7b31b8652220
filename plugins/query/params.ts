/**
 * A query's parameters: the request over the project's defaults (a value sent overrides its
 * default; objects merge field by field), then the spec's rules that depend on both (spec 001
 * rules 2-5 and "Authentication"). Each failure is a 400 naming the field.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import { checkOwnParams, QUERY_OWN_PARAMETERS } from '../../protocols/query/own-params.js'
import type { ProjectToken } from '../../domains/query/projects.js'
import type {
  EnhancePrompt,
  HistoryItem,
  ModelParams,
  QueryDefaults,
  QueryRequest,
  SearchParams,
} from '../../schemas/query-request.schema.js'

export type ResponseType = 'text' | 'json' | 'openai'

export interface QueryParams {
  readonly query: string
  readonly sessionId?: string
  readonly uploadId?: string
  readonly modelProvider: string
  readonly modelName?: string
  readonly modelParams: ModelParams
  readonly enableSearch: boolean
  readonly searchParams: SearchParams
  readonly enableHistory: boolean
  readonly responseType: ResponseType
  readonly enhance: EnhancePrompt
  readonly evalParams: { readonly context_utilization?: boolean; readonly prompt_guard?: boolean }
  readonly history?: readonly HistoryItem[]
  readonly chatUpload?: QueryRequest['chat_upload']
}

const bad = (message: string) => new GatewayError(400, message, { code: 'invalid_request' })

function merged<T extends object>(base: T | undefined, over: T | undefined): T {
  return { ...(base ?? {}), ...(over ?? {}) } as T
}

/**
 * Resolves the parameters of a query. `endpoint` is what the route serves (`query` on REST; the
 * WebSocket also serves `realtime`).
 */
export function resolveParams(
  body: QueryRequest,
  defaults: QueryDefaults,
  token: ProjectToken,
  endpoints: readonly string[] = ['query'],
): QueryParams {
  if (!endpoints.includes(body.endpoint)) {
    const where = body.endpoint === 'realtime' ? ' (realtime is served over the WebSocket)' : ''
    throw bad(`endpoint must be ${endpoints.join(' or ')}${where}`)
  }
  checkOwnParams(token.kind, body, QUERY_OWN_PARAMETERS)
  const searchParams = merged(defaults.search_params, body.search_params)
  const enableSearch = body.enable_search ?? defaults.enable_search ?? false
  if (enableSearch) {
    if (body.search_params === undefined && defaults.search_params === undefined)
      throw bad('search_params is required when enable_search is true')
    if (token.kind === 'developer' && body.search_params?.collection === undefined)
      throw bad('search_params.collection is required with a developer token when enable_search is true')
    if (searchParams.collection === undefined)
      throw bad(
        'search_params.collection is required when enable_search is true (the project has no default collection)',
      )
  }
  if (searchParams.prompt_mode === 'custom') {
    const template = searchParams.search_prompt
    if (template === undefined) throw bad('search_params.search_prompt is required when prompt_mode is custom')
    const missing = ['{data}', '{query}'].filter((p) => !template.includes(p))
    if (missing.length)
      throw bad(
        `search_params.search_prompt must contain {data} and {query} when prompt_mode is custom (missing ${missing.join(' and ')})`,
      )
  }
  const modelParams = merged(defaults.model_params, body.model_params)
  return {
    query: body.query,
    sessionId: body.session_id,
    uploadId: body.query_id,
    modelProvider: body.model_provider ?? defaults.model_provider ?? 'gateway',
    modelName: body.model_name ?? defaults.model_name,
    modelParams,
    enableSearch,
    searchParams,
    enableHistory: body.enable_history ?? defaults.enable_history ?? false,
    responseType: (body.response_format ?? defaults.response_format)?.type ?? 'text',
    enhance: merged(defaults.enhance_prompt, body.enhance_prompt),
    evalParams: merged(defaults.eval_params, body.eval_params),
    history: body.history,
    chatUpload: body.chat_upload,
  }
}
