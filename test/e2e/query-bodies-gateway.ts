/**
 * A test gateway with the embedded default config (which serves pipelines/query.yaml under
 * /query/v1) and the admin API's key, and the calls the Query service's body-type tests share.
 */
import type { UsageMetric } from '../../protocols/query/usage-metric.js'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'

export const ADMIN = 'sk-admin-query-bodies'

export function startQueryGateway(): Promise<TestGateway> {
  return startTestGateway({
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
    server: { stores: { records_flush_ms: 50 } as never },
  })
}

/** A Query service reply: the envelope, or the error shape. */
export interface QueryReply {
  response?: {
    response: unknown
    metadata: { sources: Record<string, unknown>; query_id: string; usage_metric: UsageMetric; [k: string]: unknown }
  }
  file?: string
  query_id?: string
  error?: { status: number; type: string; code?: string; message: string }
}

export interface Answer {
  status: number
  body: QueryReply
}

/** POSTs a Query service body type with a token (none when undefined). */
export async function post(gw: TestGateway, route: string, body: unknown, token: string | undefined): Promise<Answer> {
  const res = await fetch(`${gw.url}/query/v1/${route}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as QueryReply }
}

export interface RecordView {
  key: string
  route: string
  model: string
  prompt_tokens: number
  completion_tokens: number
  value: number
  request_id: string
}

/** The usage records of key `demo` since `since`, through the admin API, newest first. */
export async function demoRecords(gw: TestGateway, since: number): Promise<RecordView[]> {
  const res = await fetch(`${gw.url}/admin/records?key=demo&from=${since}&limit=1000`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  })
  return ((await res.json()) as { data: RecordView[] }).data
}

/** The query error shape: `{"error":{"status","type","code"?,"message"}}`. */
export function isQueryError(body: QueryReply, status: number): boolean {
  const e = body.error
  return (
    !!e &&
    e.status === status &&
    typeof e.type === 'string' &&
    typeof e.message === 'string' &&
    Object.keys(body).length === 1
  )
}
