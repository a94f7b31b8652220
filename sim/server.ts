/**
 * The HTTP front of the simulator on plain node:http: a route table, body parsing, and one
 * error boundary that renders every failure in vLLM's nested error form.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import { handleAdminGet, handleAdminPost } from './admin.js'
import { errorBody, SimError } from './api-error.js'
import { handleChatCompletions } from './chat.js'
import { handleCompletions } from './completions.js'
import { handleEmbeddings } from './embeddings.js'
import { handleImageGenerations } from './images.js'
import { parseJsonBody, readBody, sendError, sendJson, sendText, sseData, sseDone } from './http-io.js'
import { renderMetrics } from './metrics.js'
import { simFront, type SimFront } from './front.js'
import { handleRerank, handleScore } from './rerank.js'
import { modelsList } from './models-list.js'
import type { SimContext } from './sim-context.js'
import { handleSpeech } from './speech.js'
import { handleVoices } from './speech-voices.js'
import { transcriptionHandler } from './transcription.js'
import { handleDetokenize, handleTokenize } from './tokenize.js'

type PlainHandler = (sim: SimContext, req: IncomingMessage, res: ServerResponse) => void
type BodyHandler = (
  sim: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  arrival: number,
) => void | Promise<void>

/** Uploads (multipart audio) get the raw bytes. */
type RawHandler = (
  sim: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  raw: Buffer,
  arrival: number,
) => void | Promise<void>

type Route =
  | { kind: 'plain'; handle: PlainHandler }
  | { kind: 'body'; handle: BodyHandler }
  | { kind: 'raw'; handle: RawHandler }

/** A 64 MiB recording plus the form around it (the gateway's upload limit and allowance). */
const uploadLimitBytes = 65 * 1024 * 1024

function sendEmpty(res: ServerResponse): void {
  res.writeHead(200, { 'content-length': 0 })
  res.end()
}

const routes = new Map<string, Route>([
  ['GET /v1/models', { kind: 'plain', handle: (sim, _req, res) => sendJson(res, 200, modelsList(sim)) }],
  ['POST /v1/chat/completions', { kind: 'body', handle: handleChatCompletions }],
  ['POST /v1/completions', { kind: 'body', handle: handleCompletions }],
  ['POST /v1/embeddings', { kind: 'body', handle: handleEmbeddings }],
  ['POST /v1/rerank', { kind: 'body', handle: handleRerank }],
  ['POST /v2/rerank', { kind: 'body', handle: handleRerank }],
  ['POST /rerank', { kind: 'body', handle: handleRerank }],
  ['POST /score', { kind: 'body', handle: handleScore }],
  ['POST /v1/score', { kind: 'body', handle: handleScore }],
  ['POST /v1/images/generations', { kind: 'body', handle: handleImageGenerations }],
  ['POST /v1/audio/speech', { kind: 'body', handle: handleSpeech }],
  ['GET /v1/audio/voices', { kind: 'plain', handle: handleVoices }],
  ['POST /v1/audio/transcriptions', { kind: 'raw', handle: transcriptionHandler('transcribe') }],
  ['POST /v1/audio/translations', { kind: 'raw', handle: transcriptionHandler('translate') }],
  ['POST /tokenize', { kind: 'body', handle: (sim, _req, res, body) => handleTokenize(sim, res, body) }],
  ['POST /detokenize', { kind: 'body', handle: (sim, _req, res, body) => handleDetokenize(sim, res, body) }],
  ['GET /health', { kind: 'plain', handle: (_sim, _req, res) => sendEmpty(res) }],
  ['GET /ping', { kind: 'plain', handle: (_sim, _req, res) => sendEmpty(res) }],
  ['GET /version', { kind: 'plain', handle: (_sim, _req, res) => sendJson(res, 200, { version: 'sluice-sim' }) }],
  [
    'GET /metrics',
    {
      kind: 'plain',
      handle: (sim, _req, res) =>
        sendText(
          res,
          200,
          'text/plain; version=0.0.4; charset=utf-8',
          renderMetrics([...sim.engines.values()].map((engine) => engine.metrics)),
        ),
    },
  ],
  ['GET /admin/config', { kind: 'plain', handle: (sim, _req, res) => handleAdminGet(sim, res) }],
  ['POST /admin/config', { kind: 'body', handle: (sim, _req, res, body) => handleAdminPost(sim, res, body) }],
])

const knownPaths = new Set([...routes.keys()].map((key) => key.slice(key.indexOf(' ') + 1)))

/** The simulator's server: HTTP/1.1 and h2c on one port (front.ts). */
export function createSimServer(sim: SimContext, log: (line: string) => void): SimFront {
  return simFront((req, res) => dispatch(sim, req, res, log))
}

function dispatch(sim: SimContext, req: IncomingMessage, res: ServerResponse, log: (line: string) => void): void {
  const arrival = performance.now()
  const url = req.url ?? '/'
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  const route = routes.get(`${req.method ?? 'GET'} ${path}`)
  if (!route) {
    // FastAPI's own answers for unknown paths and methods, which is what vLLM sends.
    if (knownPaths.has(path)) sendJson(res, 405, { detail: 'Method Not Allowed' })
    else sendJson(res, 404, { detail: 'Not Found' })
    req.resume()
    return
  }
  if (route.kind === 'plain') {
    req.resume()
    try {
      route.handle(sim, req, res)
    } catch (err) {
      fail(res, err, log)
    }
    return
  }
  readBody(req, route.kind === 'raw' ? uploadLimitBytes : undefined).then(
    (raw) => {
      try {
        const done =
          route.kind === 'raw'
            ? route.handle(sim, req, res, raw, arrival)
            : route.handle(sim, req, res, parseJsonBody(raw), arrival)
        if (done) done.catch((err: unknown) => fail(res, err, log))
      } catch (err) {
        fail(res, err, log)
      }
    },
    (err: unknown) => fail(res, err, log),
  )
}

/** The one error boundary: SimErrors as vLLM renders them, anything else as an opaque 500. */
function fail(res: ServerResponse, err: unknown, log: (line: string) => void): void {
  const simError = err instanceof SimError ? err : undefined
  if (!simError) log(`sluice-sim: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
  const error = simError ?? new SimError(500, 'Internal server error')
  if (res.headersSent) {
    // Mid-stream there is no status left to set: vLLM sends the error as an event, then [DONE].
    if (!res.writableEnded && !res.destroyed) res.end(sseData(errorBody(error)) + sseDone)
    return
  }
  sendError(res, error)
}
