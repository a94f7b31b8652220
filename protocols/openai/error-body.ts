/** The `openai` error style of the spec: `{"error":{"message","type","code"?}}`, as JSON. */
import type { GatewayError } from '../../kernel/contract/index.js'

export function openaiErrorBody(err: GatewayError): unknown {
  if (err.rawBody !== undefined) return err.rawBody
  const error: { message: string; type: string; code?: string | number } = { message: err.message, type: err.type }
  if (err.exposeCode && err.code !== undefined) error.code = err.code
  return { error }
}

export function openaiErrorStyle() {
  return (err: GatewayError) => ({
    status: err.status,
    contentType: 'application/json',
    body: JSON.stringify(openaiErrorBody(err)),
  })
}
