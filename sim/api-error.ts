/**
 * Errors as vLLM (≥ 0.10.1) renders them: `{"error":{"message","type","param","code"}}`, with
 * `type` derived from the status the way vLLM and llm-d-inference-sim do it, and `code` the
 * status number. The gateway's adapter is tested against exactly this shape.
 */

export class SimError extends Error {
  readonly status: number
  readonly param: string | null

  constructor(status: number, message: string, param: string | null = null) {
    super(message)
    this.name = 'SimError'
    this.status = status
    this.param = param
  }
}

export function errorTypeForStatus(status: number): string {
  if (status >= 500) return 'InternalServerError'
  switch (status) {
    case 400:
      return 'BadRequestError'
    case 401:
      return 'AuthenticationError'
    case 403:
      return 'PermissionDeniedError'
    case 404:
      return 'NotFoundError'
    case 422:
      return 'UnprocessableEntityError'
    case 429:
      return 'RateLimitError'
    default:
      return 'BadRequestError'
  }
}

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: number }
}

export function errorBody(err: SimError): ErrorBody {
  return { error: { message: err.message, type: errorTypeForStatus(err.status), param: err.param, code: err.status } }
}
