/**
 * A fake REST catalog in the JSON shape mapping servers publish, on 127.0.0.1 (port 0):
 * `GET <prefix>?f=json` for the root and `GET <prefix>/<folder>?f=json` per folder. It records
 * every request so tests can count fetches, and can be told to fail.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeService {
  name: string
  type: string
}

export interface FakeCatalog {
  currentVersion?: number
  rootServices: FakeService[]
  folders: Record<string, FakeService[]>
  /** Folders the root lists but whose own document is an error. */
  brokenFolders?: string[]
}

export interface FakeRestServer {
  /** Base URL of the REST catalog, `http://127.0.0.1:<port>/arcgis/rest/services`. */
  readonly url: string
  /** Every request's path and query, in order. */
  readonly requests: string[]
  catalog: FakeCatalog
  /** `ok` (default), `http-500`, `error-json` (HTTP 200 with an {"error":…} body), `garbage`, `huge`. */
  mode: 'ok' | 'http-500' | 'error-json' | 'garbage' | 'huge'
  close(): Promise<void>
}

const PREFIX = '/arcgis/rest/services'

export async function startFakeRestCatalog(catalog: FakeCatalog): Promise<FakeRestServer> {
  const state = { catalog, mode: 'ok' as FakeRestServer['mode'] }
  const requests: string[] = []
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '')
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const send = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(body)
    }
    if (state.mode === 'http-500') return send(500, '{"error":"boom"}')
    if (state.mode === 'error-json')
      return send(200, JSON.stringify({ error: { code: 499, message: 'Token Required', details: [] } }))
    if (state.mode === 'garbage') return send(200, '<html>not json</html>')
    if (state.mode === 'huge')
      return send(200, JSON.stringify({ folders: [], services: [], pad: 'x'.repeat(64 * 1024) }))
    if (url.searchParams.get('f') !== 'json') return send(400, '{"error":{"code":400,"message":"f=json expected"}}')
    const rest = url.pathname.startsWith(PREFIX)
      ? url.pathname.slice(PREFIX.length).replace(/^\/+|\/+$/g, '')
      : undefined
    if (rest === undefined) return send(404, '{}')
    if (rest === '') {
      return send(
        200,
        JSON.stringify({
          currentVersion: state.catalog.currentVersion ?? 11.3,
          folders: [...Object.keys(state.catalog.folders), ...(state.catalog.brokenFolders ?? [])],
          services: state.catalog.rootServices,
        }),
      )
    }
    const folder = decodeURIComponent(rest)
    const services = state.catalog.folders[folder]
    if (services === undefined) return send(200, JSON.stringify({ error: { code: 404, message: 'Folder not found' } }))
    return send(200, JSON.stringify({ currentVersion: 11.3, folders: [], services }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}${PREFIX}`,
    requests,
    get catalog() {
      return state.catalog
    },
    set catalog(c: FakeCatalog) {
      state.catalog = c
    },
    get mode() {
      return state.mode
    },
    set mode(m: FakeRestServer['mode']) {
      state.mode = m
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
