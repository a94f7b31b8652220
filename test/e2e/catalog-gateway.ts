/**
 * Starts the real gateway serving pipelines/catalog.yaml, for the catalog's end-to-end tests.
 * The two SOAP plugins are passed in unless the built-in registry already has them, and the
 * pipeline list is set explicitly, so the tests do not depend on server.yaml.
 */
import soapCodec from '../../plugins/soap-codec/index.js'
import serviceCatalog from '../../plugins/service-catalog/index.js'
import { builtinPlugins } from '../../plugins/registry.js'
import type { AnyPlugin } from '../../kernel/contract/plugin.js'
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../support/gateway.js'

export const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/'
export const CATALOG_NS = 'http://www.example.org/schemas/GIS/10.7'

export function catalogPlugins(): AnyPlugin[] {
  return ([soapCodec, serviceCatalog] as AnyPlugin[]).filter((p) => !builtinPlugins.some((b) => b.name === p.name))
}

export function startCatalogGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  return startTestGateway({
    ...options,
    plugins: [...catalogPlugins(), ...(options.plugins ?? [])],
    server: { pipelines: ['catalog.yaml'], ...options.server },
  })
}

/** POSTs raw XML to /catalog. */
export async function postXml(
  gw: TestGateway,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
): Promise<{ status: number; contentType: string | null; text: string }> {
  const res = await fetch(`${gw.url}/catalog`, {
    method: 'POST',
    headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""', ...headers },
    body,
  })
  return { status: res.status, contentType: res.headers.get('content-type'), text: await res.text() }
}
