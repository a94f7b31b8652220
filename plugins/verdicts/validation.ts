/**
 * Checks a verdicts request against the spec's rules and limits, with the spec's statuses and
 * messages, and turns it into a job: the rendered state, the images and the questions with
 * their answers and labels. Checks run cheapest first: the question count, each question,
 * the state, the images, then the sizes (413).
 */
import { GatewayError } from '../../kernel/contract/index.js'
import type { VerdictsRequest } from '../../schemas/verdicts-request.schema.js'
import { imageBytes } from './images.js'
import { labelsFor, type QuestionType } from './labels.js'
import { renderState } from './prompt.js'
import type { Question } from './question.js'

export type { Question }

export const LIMITS = {
  questions: 32,
  idBytes: 64,
  choiceOptions: { min: 2, max: 26 },
  optionNameBytes: 200,
  scoreLevels: { min: 2, max: 10 },
  stateBytes: 2 * 1024 * 1024,
  images: 8,
  imageBytes: 20 * 1024 * 1024,
  imageBytesTimesQuestions: 64 * 1024 * 1024,
} as const

export interface VerdictJob {
  /** As sent; undefined when left out (the deployment default answers). */
  readonly model: string | undefined
  /** The state as the prompt shows it; undefined when only images are given. */
  readonly state: string | undefined
  readonly images: readonly string[]
  /** Bytes of image data (decoded data URLs), for the limits. */
  readonly imageBytes: number
  readonly questions: readonly Question[]
}

const STATE_RULE = 'state must be a string, object or array, and may be left out only when images are given'

function bad(message: string): GatewayError {
  return new GatewayError(400, message, { code: 'invalid_request' })
}

function tooLarge(message: string): GatewayError {
  return new GatewayError(413, message, { code: 'body_too_large' })
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8')

export function validateRequest(raw: unknown): VerdictJob {
  if (!isPlainObject(raw)) throw bad('invalid request: the body must be a JSON object')
  const body = raw as VerdictsRequest
  const questions = readQuestions(body.questions)
  const images = readImages(body.images)
  const state = readState(body.state, images.length > 0)
  if (images.length > LIMITS.images) throw bad(`too many images: ${images.length} (maximum ${LIMITS.images})`)
  let totalImageBytes = 0
  images.forEach((url, i) => (totalImageBytes += imageBytes(url, i)))
  if (state !== undefined && bytes(state) > LIMITS.stateBytes) throw tooLarge('rendered state is too large')
  if (totalImageBytes > LIMITS.imageBytes)
    throw tooLarge(`image data is too large: ${totalImageBytes} bytes (maximum 20 MiB)`)
  // Every question carries every image to the model server.
  if (totalImageBytes * questions.length > LIMITS.imageBytesTimesQuestions)
    throw tooLarge(
      `image data times questions is too large: ${totalImageBytes} bytes × ${questions.length} questions (maximum 64 MiB); send fewer questions or smaller images`,
    )
  if (body.model !== undefined && body.model !== null && typeof body.model !== 'string')
    throw bad('model must be a string')
  const model = body.model === null || body.model === '' ? undefined : body.model
  return { model, state, images, imageBytes: totalImageBytes, questions }
}

// The route's schema types these; the checks stand for callers that bypass it (kernel.call, tests).
function readImages(raw: unknown): string[] {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw) || raw.some((url) => typeof url !== 'string')) throw bad('images must be an array of strings')
  return raw as string[]
}

function readState(state: unknown, hasImages: boolean): string | undefined {
  // JSON null is a left-out state, as an optional field reads it.
  if (state === undefined || state === null) {
    if (!hasImages) throw bad(STATE_RULE)
    return undefined
  }
  if (typeof state !== 'string' && typeof state !== 'object') throw bad(STATE_RULE)
  return renderState(state)
}

function readQuestions(raw: unknown): Question[] {
  if (raw === undefined || raw === null) throw bad('questions is required: an object of 1 to 32 questions keyed by id')
  if (!isPlainObject(raw)) throw bad('questions must be an object of 1 to 32 questions keyed by id')
  const entries = Object.entries(raw)
  if (entries.length > LIMITS.questions)
    throw bad(`too many questions: ${entries.length} (maximum ${LIMITS.questions})`)
  if (entries.length === 0) throw bad('too few questions: 0 (minimum 1)')
  return entries.map(([id, q]) => readQuestion(id, q))
}

function readQuestion(id: string, raw: unknown): Question {
  if (id.length === 0) throw bad('question id must not be empty')
  if (bytes(id) > LIMITS.idBytes) throw bad(`question id is too long: ${bytes(id)} bytes (maximum ${LIMITS.idBytes})`)
  if (!isPlainObject(raw)) throw bad(`question ${id} must be an object with type, instructions and criteria`)
  const type = raw.type
  if (type !== 'boolean' && type !== 'choice' && type !== 'score')
    throw bad('invalid request: unknown variant for question type')
  const instructions = raw.instructions
  if (typeof instructions !== 'string' || instructions.trim() === '')
    throw bad(`question ${id}: instructions must be a non-empty string`)
  const { answers, descriptions } = readCriteria(id, type, raw.criteria)
  return { id, type, instructions, answers, descriptions, labels: labelsFor(type, answers.length) }
}

function readCriteria(
  id: string,
  type: QuestionType,
  criteria: unknown,
): { answers: string[]; descriptions: Array<string | null> } {
  switch (type) {
    case 'boolean': {
      if (criteria === undefined || criteria === null) return { answers: ['false', 'true'], descriptions: [null, null] }
      if (!isPlainObject(criteria))
        throw bad(`question ${id}: boolean criteria must be an object with keys true and false`)
      const meaning = (key: 'true' | 'false'): string | null => {
        const v = criteria[key]
        if (v === undefined || v === null) return null
        if (typeof v !== 'string') throw bad(`question ${id}: criteria.${key} must be a string`)
        return v
      }
      return { answers: ['false', 'true'], descriptions: [meaning('false'), meaning('true')] }
    }
    case 'choice': {
      if (!isPlainObject(criteria))
        throw bad(
          `question ${id}: choice criteria must be an object mapping each option name to a description (or null)`,
        )
      const options = Object.entries(criteria)
      const { min, max } = LIMITS.choiceOptions
      if (options.length < min || options.length > max)
        throw bad(`question ${id}: a choice needs ${min} to ${max} options, not ${options.length}`)
      for (const [name, description] of options) {
        if (name.length === 0) throw bad(`question ${id}: option names must not be empty`)
        if (bytes(name) > LIMITS.optionNameBytes)
          throw bad(`question ${id}: option name is too long: ${bytes(name)} bytes (maximum ${LIMITS.optionNameBytes})`)
        if (description !== null && typeof description !== 'string')
          throw bad(`question ${id}: the description of option ${name} must be a string or null`)
      }
      return {
        answers: options.map(([name]) => name),
        descriptions: options.map(([, d]) => (d as string | null) ?? null),
      }
    }
    case 'score': {
      if (!Array.isArray(criteria))
        throw bad(`question ${id}: score criteria must be an array of level descriptions, lowest first`)
      const { min, max } = LIMITS.scoreLevels
      if (criteria.length < min || criteria.length > max)
        throw bad(`question ${id}: a score needs ${min} to ${max} levels, not ${criteria.length}`)
      criteria.forEach((level, i) => {
        if (typeof level !== 'string') throw bad(`question ${id}: level ${i + 1} must be a string`)
      })
      const levels = criteria as string[]
      return { answers: levels, descriptions: levels }
    }
  }
}
