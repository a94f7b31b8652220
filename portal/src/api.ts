/**
 * The portal's calls to its own API (/portal/api). The session lives in an HttpOnly cookie the
 * page cannot read; the CSRF token is kept in this module's memory only (never localStorage),
 * and re-read from GET /portal/api/session after a reload.
 */
let csrfToken = ''

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** Called when the session is gone (401), so the app shows the sign-in form. */
let onSignedOut: () => void = () => {}
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {}
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken
  let payload: BodyInit | undefined
  if (body instanceof FormData) payload = body
  else if (body !== undefined) {
    headers['content-type'] = 'application/json'
    payload = JSON.stringify(body)
  }
  const res = await fetch(`/portal/api${path}`, { method, headers, body: payload, credentials: 'same-origin' })
  const text = await res.text()
  const data = text ? (JSON.parse(text) as unknown) : undefined
  if (!res.ok) {
    const message = (data as { error?: { message?: string } } | undefined)?.error?.message ?? `HTTP ${res.status}`
    if (res.status === 401 && path !== '/session') onSignedOut()
    throw new ApiError(res.status, message)
  }
  return data as T
}

export const api = {
  get: <T>(path: string) => call<T>('GET', path),
  post: <T>(path: string, body?: unknown) => call<T>('POST', path, body),
  put: <T>(path: string, body: unknown) => call<T>('PUT', path, body),
  patch: <T>(path: string, body: unknown) => call<T>('PATCH', path, body),
  delete: <T>(path: string) => call<T>('DELETE', path),
}

interface SessionView {
  csrf_token: string
  expires_at: string
}

export async function signIn(adminKey: string): Promise<void> {
  csrfToken = (await api.post<SessionView>('/session', { admin_key: adminKey })).csrf_token
}

/** Whether a session cookie is live (after a reload); picks up its CSRF token. */
export async function resume(): Promise<boolean> {
  try {
    csrfToken = (await api.get<SessionView>('/session')).csrf_token
    return true
  } catch {
    return false
  }
}

export async function signOut(): Promise<void> {
  await api.delete('/session')
  csrfToken = ''
}

export interface Key {
  id: string
  group: string
  enabled: boolean
  legacy: boolean
  budget: { amount: number; term?: string } | null
  tokens_per_minute: number | null
  /** ISO 8601; past it the key gets 401 "api key expired". */
  expires_at: string | null
  expired: boolean
  /** The key's own models, within its group's; null: the group's. */
  models: string[] | null
  requests_per_minute: number | null
  source: string
  created_at: string | null
}

export interface Group {
  id: string
  models: string[]
  weight: number
  budget: { amount: number; term: string } | null
  tokens_per_minute: number | null
  source: string
}

export interface UsageRow {
  key?: string
  model?: string
  group?: string
  requests: number
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
  value: number
  /** Indicative value charged to budgets: client requests and their internal calls. */
  charged: number
  last_at: string
}

export interface UsageRecord {
  at: string
  request_id: string
  /** The client request an internal call was made for; null on a client request's own record. */
  parent_request_id: string | null
  key: string
  group: string
  route: string
  model: string
  prompt_tokens: number
  completion_tokens: number
  cached_tokens: number
  value: number
  charged: number
  cached: boolean
  fallback_from: string | null
  status: number
  outcome: string
  total_ms: number | null
}

export interface List<T> {
  data: T[]
}
