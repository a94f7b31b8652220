/**
 * `advanced_rag`: query variants written by a chat model, each retrieved and fused with the
 * original by reciprocal rank fusion. One call of the `chat-internal` route (queued, metered,
 * recorded), a short prompt asking for paraphrases one per line; the answer's lines are
 * cleaned of list marks, de-duplicated against the query, bounded in number and length.
 */
import { GatewayError, type Principal } from '../../../../kernel/contract/index.js'
import type { RouteCall } from './rerank.js'

const MAX_VARIANT_CHARS = 512

export function variantsPrompt(query: string, count: number): string {
  return (
    `Write ${count} different rephrasings of the search query below, to help find relevant passages in a document collection. ` +
    `Keep the meaning; vary the words. Answer with one rephrasing per line and nothing else.\n\nQuery: ${query}`
  )
}

/** The variants in a model's answer: one per line, list marks and quotes removed, at most `count`. */
export function parseVariants(text: string, query: string, count: number): string[] {
  const seen = new Set([query.trim().toLowerCase()])
  const out: string[] = []
  for (const raw of text.split(/\r?\n/)) {
    const line = raw
      .replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '')
      .replace(/^["'“]|["'”]$/g, '')
      .trim()
      .slice(0, MAX_VARIANT_CHARS)
    if (!line || /^(query|rephrasings?)\s*:?$/i.test(line) || seen.has(line.toLowerCase())) continue
    seen.add(line.toLowerCase())
    out.push(line)
    if (out.length === count) break
  }
  return out
}

export async function queryVariants(
  call: RouteCall,
  /** The chat route it calls (server.yaml `query.routes.chat`). */
  route: string,
  model: string,
  query: string,
  count: number,
  options: { principal: Principal; signal?: AbortSignal; parentId?: string },
): Promise<string[]> {
  const body = {
    model,
    messages: [{ role: 'user', content: variantsPrompt(query, count) }],
    temperature: 0.7,
    max_tokens: 64 * count,
  }
  const { reply } = await call(route, body, options)
  const json = reply.kind === 'json' ? reply.body : reply.kind === 'text' ? safeParse(reply.text) : undefined
  const content = (json as { choices?: { message?: { content?: unknown } }[] } | undefined)?.choices?.[0]?.message
    ?.content
  if (reply.status !== 200 || typeof content !== 'string')
    throw new GatewayError(502, `query variants: chat model ${model} gave no answer`, { code: 'upstream_failed' })
  return parseVariants(content, query, count)
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
