/** A stand-in for the chat route: records each call of the verdicts plugin and answers as told. */
import { Usage } from '../../../kernel/contract/usage.js'
import type { CallOptions, CallResult, Kernel } from '../../../kernel/contract/kernel.js'
import { makeKernel } from '../../../bin/testing/harness.js'

export interface RecordedCall {
  route: string
  body: Record<string, unknown>
  options: CallOptions | undefined
}

export interface CompletionSpec {
  /** The first token's top logprobs as [token, probability]; the first is the chosen token. */
  top?: Array<[string, number]>
  /** The model thought first (its one token went to reasoning). */
  reasoning?: string
  /** Send `logprobs: null`. */
  noLogprobs?: boolean
  model?: string
  promptTokens?: number
  cachedTokens?: number
}

/** A chat completion body in vLLM's shape. */
export function completion(spec: CompletionSpec): Record<string, unknown> {
  const top = (spec.top ?? []).map(([token, p]) => ({ token, logprob: Math.log(p), bytes: [...Buffer.from(token)] }))
  const first = top[0]
  const thinking = spec.reasoning !== undefined
  const logprobs = spec.noLogprobs ? null : { content: thinking || !first ? [] : [{ ...first, top_logprobs: top }] }
  const prompt = spec.promptTokens ?? 100
  return {
    object: 'chat.completion',
    model: spec.model ?? 'sim-vision-7b',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: thinking ? '' : (first?.token ?? ''),
          reasoning: spec.reasoning ?? null,
        },
        logprobs,
        finish_reason: 'length',
      },
    ],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: 1,
      total_tokens: prompt + 1,
      prompt_tokens_details: { cached_tokens: spec.cachedTokens ?? 0 },
    },
  }
}

export type Answer = Record<string, unknown> | Error

export interface FakeChat {
  kernel: Kernel
  calls: RecordedCall[]
}

/** A kernel whose `call` answers with `answer(body, index)`: a completion body, or an error to throw. */
export function fakeChat(
  answer: (body: Record<string, unknown>, index: number) => Answer | Promise<Answer>,
  headers: Record<string, string> = {},
): FakeChat {
  const calls: RecordedCall[] = []
  const kernel = makeKernel({
    call: async (route, body, options): Promise<CallResult> => {
      const b = body as Record<string, unknown>
      calls.push({ route, body: b, options })
      const result = await answer(b, calls.length - 1)
      if (result instanceof Error) throw result
      return {
        reply: { kind: 'json', status: 200, body: result },
        headers: new Map(Object.entries(headers)),
        usage: new Usage(undefined),
      }
    },
  })
  return { kernel, calls }
}

/** The text of the last message of a recorded call. */
export function lastMessage(call: RecordedCall): string {
  const messages = call.body.messages as Array<{ content: unknown }>
  return String(messages.at(-1)?.content)
}
