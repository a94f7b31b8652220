/**
 * Why a question fails, with the spec's 502 messages (Errors, verdict row), and how an error of
 * the chat route is reported for a verdict. Any failed question fails the whole request:
 * there are no partial results (rule 8).
 */
import { GatewayError } from '../../kernel/contract/index.js'

export const failures = {
  noLogprobs: () => new GatewayError(502, 'backend returned no logprobs', { code: 'upstream_error' }),
  noLabel: () => new GatewayError(502, 'model produced no recognizable answer label', { code: 'upstream_error' }),
  mediaFetch: (cause: unknown) =>
    new GatewayError(502, 'upstream returned 422 failing to fetch media from URL', { code: 'upstream_error', cause }),
}

/** The model server's wordings of a context overflow (reference/backends.md §1). */
const CONTEXT_LENGTH = /maximum context length|context length is only/i
const MEDIA_FETCH = /fetch/i

/**
 * Errors of the model server (passed through by the backend adapter with its own status)
 * become 502s: the question failed upstream, not the request. Two exceptions keep their own
 * status: a context overflow (400: the state is too long for the model; retrying cannot help)
 * and everything the gateway itself decided before any model ran (401/403 keys and budgets,
 * 404 unknown model, 429 token window, 503 capacity, 504 time limit, 502 unreachable server).
 */
export function questionFailure(err: unknown): unknown {
  if (!(err instanceof GatewayError) || err.code !== 'upstream_error') return err
  if (err.status === 422 && MEDIA_FETCH.test(err.message)) return failures.mediaFetch(err)
  if (err.status === 400 && CONTEXT_LENGTH.test(err.message)) return err
  if (err.status === 502) return err
  return new GatewayError(502, `upstream returned ${err.status}: ${err.message}`, {
    code: 'upstream_error',
    cause: err,
  })
}
