/**
 * How the kernel's one boundary renders an error, by the pipeline's `errors:` setting. A style
 * is a wire vocabulary, so each lives in protocols/; this table only names them.
 */
import type { GatewayError } from '../contract/errors.js'
import type { ErrorsSetting } from '../../schemas/pipeline.schema.js'
import { openaiErrorStyle } from '../../protocols/openai/error-body.js'
import { soapErrorStyle } from '../../protocols/soap/fault.js'
import { anthropicErrorStyle } from '../../protocols/anthropic/error-body.js'
import { queryErrorStyle } from '../../protocols/query/error-body.js'

export type RenderedError = { readonly status: number; readonly contentType: string; readonly body: string }

export type ErrorStyle = (err: GatewayError) => RenderedError

/** Resolves a pipeline's `errors:` (a style name, or `{style, fault_namespace}`) once, at load. */
export function errorStyle(setting: ErrorsSetting | undefined): ErrorStyle {
  const s = typeof setting === 'object' ? setting : { style: setting ?? 'openai' }
  if (s.style === 'soap') return soapErrorStyle(s.fault_namespace)
  return s.style === 'anthropic' ? anthropicErrorStyle() : s.style === 'query' ? queryErrorStyle() : openaiErrorStyle()
}

/** Paths no pipeline serves (404, 405) and errors before a route is known. */
export const defaultErrorStyle: ErrorStyle = openaiErrorStyle()
