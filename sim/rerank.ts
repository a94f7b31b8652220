/**
 * Reranking, as the servers that do it answer (scores: rerank-score.ts):
 * - `POST /v1/rerank`, `/v2/rerank`, and `/rerank` with `documents`: vLLM's Cohere/Jina shape,
 *   `{id, model, usage, results:[{index, document:{text}, relevance_score}]}`, best first,
 *   cut to `top_n`;
 * - `POST /rerank` with `texts`: Text Embeddings Inference's, a bare array `[{index, score,
 *   text?}]`, best first (`raw_scores` gives logits, `return_text` the texts); TEI serves one
 *   model, so without `model` the first rerank model answers;
 * - `POST /score` and `/v1/score`: vLLM's, `{data:[{index, object:"score", score}], usage}` in
 *   document order, for `text_1` against `text_2` (a string or a list; two lists of one length
 *   are scored pair by pair).
 * Usage counts each pair as vLLM does: the query and the document, each with its start token.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { SimError } from './api-error.js'
import {
  isObject,
  optionalBoolean,
  optionalInteger,
  optionalString,
  requiredString,
  type JsonObject,
} from './body-fields.js'
import { modelNameOf, requireJsonObject } from './chat.js'
import { checkPoolingInput } from './context-window.js'
import { planFailure } from './failures.js'
import { poolingJob, runGeneration } from './generation-run.js'
import { responseId, unixSeconds } from './ids.js'
import type { ModelEngine } from './model-engine.js'
import { textPromptTokens } from './prompt.js'
import { rawScore, relevance } from './rerank-score.js'
import { requireKind, type SimContext } from './sim-context.js'

interface Pair {
  query: string
  document: string
}

type Respond = (scores: number[], pairs: Pair[], tokens: number, engine: ModelEngine) => unknown

/** Cohere/Jina-shaped rerank (vLLM's /rerank, /v1/rerank, /v2/rerank). */
export function handleRerank(
  sim: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  arrival: number,
): void | Promise<void> {
  const json = requireJsonObject(body)
  if (json.texts !== undefined && json.documents === undefined) return handleTeiRerank(sim, req, res, json, arrival)
  const query = requiredString(json, 'query')
  const documents = stringList(json.documents, 'documents')
  const topN = optionalInteger(json, 'top_n')
  const returnDocuments = optionalBoolean(json, 'return_documents') ?? true
  return score(
    sim,
    req,
    res,
    json,
    arrival,
    'Rerank',
    documents.map((document) => ({ query, document })),
    (scores, pairs, tokens, engine) => {
      const results = order(scores).map((index) => ({
        index,
        ...(returnDocuments ? { document: { text: pairs[index]!.document } } : {}),
        relevance_score: scores[index]!,
      }))
      return {
        id: responseId('rerank'),
        model: engine.model.name,
        usage: { total_tokens: tokens },
        results: topN !== undefined && topN > 0 ? results.slice(0, topN) : results,
      }
    },
  )
}

/** TEI's POST /rerank: `{query, texts}` in, a bare array out. */
function handleTeiRerank(
  sim: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  json: JsonObject,
  arrival: number,
): void | Promise<void> {
  const query = requiredString(json, 'query')
  const texts = stringList(json.texts, 'texts')
  const raw = optionalBoolean(json, 'raw_scores') ?? false
  const returnText = optionalBoolean(json, 'return_text') ?? false
  return score(
    sim,
    req,
    res,
    json,
    arrival,
    'Rerank',
    texts.map((document) => ({ query, document })),
    (scores, pairs) =>
      order(scores).map((index) => ({
        index,
        score: raw ? rawScore(scores[index]!) : scores[index]!,
        ...(returnText ? { text: pairs[index]!.document } : {}),
      })),
  )
}

/** vLLM's POST /score. */
export function handleScore(
  sim: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  arrival: number,
): void | Promise<void> {
  const json = requireJsonObject(body)
  const first = typeof json.text_1 === 'string' ? [json.text_1] : stringList(json.text_1, 'text_1')
  const second = typeof json.text_2 === 'string' ? [json.text_2] : stringList(json.text_2, 'text_2')
  if (first.length !== 1 && first.length !== second.length) {
    throw new SimError(
      400,
      `text_1 has ${first.length} texts and text_2 ${second.length}: they must be one of each, one against many, or lists of one length.`,
    )
  }
  const pairs = second.map((document, i) => ({ query: first.length === 1 ? first[0]! : first[i]!, document }))
  return score(sim, req, res, json, arrival, 'Score', pairs, (scores, _pairs, tokens, engine) => ({
    id: responseId('score'),
    object: 'list',
    created: unixSeconds(),
    model: engine.model.name,
    data: scores.map((s, index) => ({ index, object: 'score', score: s })),
    usage: { prompt_tokens: tokens, total_tokens: tokens, completion_tokens: 0, prompt_tokens_details: null },
  }))
}

function score(
  sim: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  json: JsonObject,
  arrival: number,
  api: string,
  pairs: Pair[],
  respond: Respond,
): void | Promise<void> {
  const failure = planFailure(req.headers, sim.settings.failure, sim.random, modelNameOf(json))
  if (failure.error) throw failure.error
  const name = optionalString(json, 'model') ?? sim.config.models.find((m) => m.kind === 'rerank')?.name
  if (name === undefined) throw new SimError(400, 'model: Field required', 'model')
  const engine = sim.engine(name)
  requireKind(engine, 'rerank', api)
  const prompts = pairs.map((p) => [...textPromptTokens(p.query), ...textPromptTokens(p.document)])
  for (const ids of prompts) checkPoolingInput(ids.length, engine.model.max_model_len)
  const tokens = prompts.reduce((sum, ids) => sum + ids.length, 0)
  const scores = pairs.map((p) => relevance(p.query, p.document))
  return runGeneration(
    poolingJob(engine, prompts, () => respond(scores, pairs, tokens, engine)),
    sim.runEnv(req, res, failure, arrival),
  )
}

/** Indexes, best score first; equal scores in request order. */
function order(scores: readonly number[]): number[] {
  return scores.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b)
}

function stringList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) throw new SimError(400, `${field}: Field required`, field)
  if (!Array.isArray(value)) throw new SimError(400, `${field}: Input should be a valid list`, field)
  if (value.length === 0)
    throw new SimError(400, `${field}: List should have at least 1 item after validation, not 0`, field)
  // Cohere v1 and Jina send `{text}` objects; vLLM takes them too.
  return value.map((item, i) => {
    if (typeof item === 'string') return item
    if (isObject(item) && typeof item.text === 'string') return item.text
    throw new SimError(400, `${field}.${i}: Input should be a valid string`, field)
  })
}
