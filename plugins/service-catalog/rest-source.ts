/**
 * The REST catalog source: reads a live catalog in the JSON shape mapping servers publish,
 *
 *   GET <base>?f=json          → {"currentVersion":…, "folders":["A",…], "services":[{"name":"Svc","type":"MapServer"},…]}
 *   GET <base>/<folder>?f=json → {"folders":[], "services":[{"name":"A/Svc","type":"FeatureServer"},…]}
 *
 * and serves it as a CatalogSnapshot, cached for a TTL. One fetch runs at a time whatever the
 * number of waiting requests; while the REST catalog fails, the last good snapshot is served
 * for up to `staleMs` past its TTL. A failure with nothing to serve is a GatewayError 502.
 */
import { GatewayError, describeCause, type Logger } from '../../kernel/contract/index.js'
import type { CatalogEntry, CatalogSnapshot, CatalogSource } from './operations.js'
import { serviceUrl } from './static-source.js'

export interface RestSourceOptions {
  /** Base URL of the REST catalog (…/rest/services). */
  readonly url: string
  /** Sent as `token=` when not empty. */
  readonly token: string
  readonly ttlMs: number
  readonly staleMs: number
  readonly timeoutMs: number
  readonly maxBytes: number
  /** Base of the SOAP service URLs written in ServiceDescription.Url. */
  readonly servicesUrl: string
  /** Only these types (empty: all). */
  readonly types: readonly string[]
  readonly log: Logger
  /** Clock (epoch ms); tests may replace it. */
  readonly now?: () => number
}

/** How many folder documents are fetched at once. */
const FOLDER_CONCURRENCY = 4

interface RestService {
  readonly name: string
  readonly type: string
}

interface RestDocument {
  readonly folders: readonly string[]
  readonly services: readonly RestService[]
}

class RestCatalogError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RestCatalogError'
  }
}

async function readLimited(res: Response, limit: number): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN)
  if (Number.isFinite(declared) && declared > limit) throw new RestCatalogError(`response larger than ${limit} bytes`)
  if (res.body === null) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = res.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel()
      throw new RestCatalogError(`response larger than ${limit} bytes`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** Checks the JSON shape; entries without a string name and type are skipped. */
function restDocument(json: unknown, where: string): RestDocument {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new RestCatalogError(`${where}: not a JSON object`)
  const doc = json as { error?: { code?: unknown; message?: unknown }; folders?: unknown; services?: unknown }
  if (doc.error !== undefined) {
    throw new RestCatalogError(
      `${where}: error ${String(doc.error?.code ?? '')} ${typeof doc.error?.message === 'string' ? doc.error.message : ''}`.trim(),
    )
  }
  const folders = Array.isArray(doc.folders)
    ? doc.folders.filter((f): f is string => typeof f === 'string' && f !== '')
    : []
  const services = Array.isArray(doc.services)
    ? doc.services.filter(
        (s): s is RestService =>
          typeof s === 'object' &&
          s !== null &&
          typeof (s as RestService).name === 'string' &&
          typeof (s as RestService).type === 'string' &&
          (s as RestService).name !== '',
      )
    : []
  return { folders, services }
}

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await fn(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

/** Resolves when `promise` does, or rejects as soon as `signal` aborts (the promise goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort)
        resolve(v)
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(e)
      },
    )
  })
}

export interface RestCatalogSource extends CatalogSource {
  /** When the cached snapshot was fetched (epoch ms), if there is one. */
  readonly fetchedAt: number | undefined
}

export function createRestSource(options: RestSourceOptions): RestCatalogSource {
  const now = options.now ?? Date.now
  const closing = new AbortController()
  const base = new URL(options.url)
  const basePath = base.pathname.replace(/\/+$/, '')
  /** The base URL as it may be logged: no query string (it may hold a token). */
  const shownBase = `${base.origin}${basePath}`
  const typeFilter = options.types.length === 0 ? undefined : new Set(options.types)

  let cached: { snapshot: CatalogSnapshot; fetchedAt: number } | undefined
  let inflight: Promise<CatalogSnapshot> | undefined

  const fetchDocument = async (folder: string | undefined): Promise<RestDocument> => {
    const url = new URL(base.href)
    url.pathname = folder === undefined ? basePath || '/' : `${basePath}/${encodeURIComponent(folder)}`
    url.searchParams.set('f', 'json')
    if (options.token !== '') url.searchParams.set('token', options.token)
    const where = folder === undefined ? shownBase : `${shownBase}/${folder}`
    const res = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.any([closing.signal, AbortSignal.timeout(options.timeoutMs)]),
    })
    if (!res.ok) {
      await res.body?.cancel()
      throw new RestCatalogError(`${where}: HTTP ${res.status}`)
    }
    const text = await readLimited(res, options.maxBytes)
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      throw new RestCatalogError(`${where}: not JSON`)
    }
    return restDocument(json, where)
  }

  const toEntry = (service: RestService, folder: string): CatalogEntry => {
    // Folder documents name their services `Folder/Name`; add the folder where a server does not.
    const name = folder === '' || service.name.startsWith(`${folder}/`) ? service.name : `${folder}/${service.name}`
    return {
      name,
      type: service.type,
      url: serviceUrl(options.servicesUrl, name, service.type, ''),
      parentType: '',
      capabilities: '',
      description: '',
      folder,
    }
  }

  const fetchSnapshot = async (): Promise<CatalogSnapshot> => {
    const root = await fetchDocument(undefined)
    const folders = [...new Set(root.folders)]
    const perFolder = await mapLimited(folders, FOLDER_CONCURRENCY, (f) => fetchDocument(f))
    const keep = (s: RestService) => typeFilter === undefined || typeFilter.has(s.type)
    const services: CatalogEntry[] = root.services.filter(keep).map((s) => toEntry(s, ''))
    folders.forEach((folder, i) => {
      for (const s of perFolder[i]!.services.filter(keep)) services.push(toEntry(s, folder))
    })
    return { folders, services }
  }

  const refresh = (): Promise<CatalogSnapshot> => {
    inflight ??= (async () => {
      try {
        const snapshot = await fetchSnapshot()
        cached = { snapshot, fetchedAt: now() }
        options.log.debug('rest catalog fetched', {
          url: shownBase,
          folders: snapshot.folders.length,
          services: snapshot.services.length,
        })
        return snapshot
      } finally {
        inflight = undefined
      }
    })()
    return inflight
  }

  return {
    get fetchedAt() {
      return cached?.fetchedAt
    },
    async snapshot(signal?: AbortSignal): Promise<CatalogSnapshot> {
      const t = now()
      if (cached !== undefined && t - cached.fetchedAt < options.ttlMs) return cached.snapshot
      try {
        return await untilAborted(refresh(), signal)
      } catch (err) {
        if (signal?.aborted) throw err
        if (cached !== undefined && t - cached.fetchedAt < options.ttlMs + options.staleMs) {
          options.log.warn('rest catalog unavailable; serving the last catalog fetched', {
            url: shownBase,
            cause: describeCause(err),
          })
          return cached.snapshot
        }
        options.log.error('rest catalog unavailable', { url: shownBase, cause: describeCause(err) })
        throw new GatewayError(502, 'The service catalog is unavailable.', { type: 'Unavailable', cause: err })
      }
    },
    close() {
      closing.abort()
    },
  }
}
