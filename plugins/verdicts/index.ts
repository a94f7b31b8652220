/**
 * verdicts: typed answers with probabilities and confidence (`POST /v1/verdicts`, spec rule 8).
 * Validates the request with the spec's messages, chooses the model, sends every question
 * concurrently through the chat route as a one-token call with the top 20 logprobs, and turns
 * each first token's distribution over answer labels into a verdict. Any failed question fails
 * the request (502, no partial result); the others are cancelled.
 */
import { definePlugin, reply } from '../../kernel/contract/index.js'
import { configSchema } from './schema.js'
import { validateRequest } from './validation.js'
import { answeringModel, chooseModel } from './model-choice.js'
import { sharedMessages } from './prompt.js'
import { askQuestion, type Answer, type AskContext } from './ask.js'
import { verdictOf, type Verdict } from './verdict.js'

declare module '../../kernel/contract/index.js' {
  interface ExchangeState {
    verdicts?: {
      /** Catalog id of the model that answered. */
      model: string
      questions: number
      /** Model calls made (a thinking model's retries add to the questions). */
      calls: number
    }
  }
}

/** Headers of the chat route that describe the model, and so belong on the verdicts response too. */
const MODEL_HEADERS = ['model-variant', 'model-status', 'model-replacement']
const PLAIN_MODEL_HEADERS = ['deprecation', 'sunset', 'link']

export default definePlugin({
  name: 'verdicts',
  config: configSchema,
  requires: ['principal'],
  setup(config, kernel) {
    const route = config.route
    return {
      async request(ex) {
        const job = validateRequest(ex.body)
        const choice = chooseModel(job.model, job.images.length > 0, kernel, ex.principal)
        // The first failure cancels the questions still running: no partial results.
        const cancel = new AbortController()
        const ctx: AskContext = {
          kernel,
          route,
          principal: ex.principal,
          signal: AbortSignal.any([ex.signal, cancel.signal]),
          parentId: ex.id,
          told: ex.usage,
          choice,
          shared: sharedMessages(job.state, job.images),
        }
        const answers = await Promise.all(
          job.questions.map((q) =>
            askQuestion(ctx, q).catch((err: unknown) => {
              cancel.abort()
              throw err
            }),
          ),
        )
        const verdicts: Record<string, Verdict> = Object.create(null) as Record<string, Verdict>
        job.questions.forEach((q, i) => (verdicts[q.id] = verdictOf(q, answers[i]!.scored)))
        const model = answeringModel(choice, answers[0]?.reportedModel, kernel)
        copyModelHeaders(ex.headers, answers[0], ex.headerPrefix)
        const calls = answers.reduce((n, a) => n + a.calls, 0)
        ex.state.verdicts = { model, questions: job.questions.length, calls }
        ex.reply = reply.json({ model, verdicts, usage: sumUsage(answers) })
      },
    }
  },
})

function copyModelHeaders(target: Map<string, string>, answer: Answer | undefined, prefix: string): void {
  if (!answer) return
  for (const name of [...MODEL_HEADERS.map((h) => prefix + h), ...PLAIN_MODEL_HEADERS]) {
    const value = answer.headers.get(name)
    if (value !== undefined) target.set(name, value)
  }
}

/** Usage summed over every call; prompt_tokens therefore counts the state once per question. */
function sumUsage(answers: readonly Answer[]) {
  let prompt = 0
  let completion = 0
  let total = 0
  let cached = 0
  for (const { usage } of answers) {
    prompt += usage.prompt_tokens
    completion += usage.completion_tokens
    total += usage.total_tokens
    cached += usage.cached_tokens
  }
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: total,
    prompt_tokens_details: { cached_tokens: cached },
  }
}
