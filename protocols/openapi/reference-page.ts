/**
 * The rendered reference: one self-contained HTML page (no script, no CDN, works offline)
 * listing every operation of an OpenAPI document with its method, path, authentication and
 * request-body schema.
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
}

export function referencePage(doc: OpenApiDocument): string {
  const rows: string[] = []
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      const op = raw as Operation
      const body = Object.entries(op.requestBody?.content ?? {})
        .map(
          ([type, c]) =>
            `<details><summary>${escape(type)} body</summary><pre>${escape(JSON.stringify(c.schema ?? {}, null, 2))}</pre></details>`,
        )
        .join('')
      rows.push(
        `<tr><td><code>${escape(method.toUpperCase())}</code></td><td><code>${escape(path)}</code></td><td>${escape(op.tags?.join(', ') ?? '')}</td>` +
          `<td>${escape(op.operationId ?? '')}</td><td>${op.security ? 'bearer' : 'none'}</td><td>${body}</td></tr>`,
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
<table><thead><tr><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Pipeline</th><th scope="col">Route</th><th scope="col">Auth</th><th scope="col">Request body</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>
</body></html>
`
}
