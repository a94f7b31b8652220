/**
 * The rendered reference: one self-contained HTML page (no script, no CDN, works offline)
 * listing every operation of an OpenAPI document with its method, path, authentication,
 * request-body schema, success responses (with their schemas) and error statuses.
 */
import type { OpenApiDocument } from './document.js'

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

interface Operation {
  operationId?: string
  tags?: string[]
  security?: unknown[]
  requestBody?: { content?: Record<string, { schema?: unknown }> }
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>
}

function schemaDetails(label: string, content: Record<string, { schema?: unknown }> | undefined): string {
  return Object.entries(content ?? {})
    .map(
      ([type, c]) =>
        `<details><summary>${escape(label)} ${escape(type)}</summary><pre>${escape(JSON.stringify(c.schema ?? {}, null, 2))}</pre></details>`,
    )
    .join('')
}

/** Success responses with their schemas; error statuses by number, each with its reasons as a tooltip. */
function responsesCell(responses: NonNullable<Operation['responses']>): string {
  const entries = Object.entries(responses)
  const success = entries
    .filter(([status]) => status.startsWith('2'))
    .map(([status, r]) => schemaDetails(status, r.content) || `${escape(status)} `)
    .join('')
  const errors = entries
    .filter(([status]) => /^[45]/.test(status))
    .map(([status, r]) => `<abbr title="${escape(r.description ?? '')}">${escape(status)}</abbr>`)
    .join(' ')
  return `${success}${errors ? `<p>errors: ${errors}</p>` : ''}`
}

export function referencePage(doc: OpenApiDocument): string {
  const rows: string[] = []
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      const op = raw as Operation
      const body = schemaDetails('body', op.requestBody?.content)
      rows.push(
        `<tr><td><code>${escape(method.toUpperCase())}</code></td><td><code>${escape(path)}</code></td><td>${escape(op.tags?.join(', ') ?? '')}</td>` +
          `<td>${escape(op.operationId ?? '')}</td><td>${escape(op.security?.flatMap((s) => Object.keys(s as object)).join(', ') || 'none')}</td><td>${body}</td><td>${responsesCell(op.responses ?? {})}</td></tr>`,
      )
    }
  }
  const info = doc.info as { title?: string; version?: string }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(info.title ?? 'API')} reference</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .5rem;vertical-align:top;text-align:left}pre{max-height:30rem;overflow:auto;font-size:.8rem}</style>
</head><body>
<h1>${escape(info.title ?? 'API')} ${escape(info.version ?? '')}</h1>
<p>OpenAPI 3.1: <a href="/openapi.json">/openapi.json</a> (all pipelines), <code>/openapi/&lt;pipeline&gt;.json</code> (one). The SOAP service catalog: <a href="/catalog?wsdl">WSDL</a>.</p>
<table><thead><tr><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Pipeline</th><th scope="col">Route</th><th scope="col">Auth</th><th scope="col">Request body</th><th scope="col">Responses</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>
</body></html>
`
}
