/**
 * The rounds of the tool boons: the model is asked with the boons' tools beside the client's;
 * when every tool call of its reply is a boon's, the gateway runs them, appends the assistant
 * message and the tool messages, and asks again, at most `maxRounds` times (the round after
 * those is asked without the boons' tools, so it answers). The client sees one reply: the last
 * round's, with usage summed over the rounds and any generated image appended to its content.
 * A reply with a call of a client tool goes back to the client as usual (boon calls removed).
 *
 * Each round is its own request through `route` (kernel.call under the caller's key), so it is
 * queued, budgeted and recorded like any other; a streamed request streams every round and
 * forwards only the answering one (docs/decisions.md).
 */
import {
  GatewayError,
  SerializedEvent,
  type CallResult,
  type Exchange,
  type Kernel,
  type StreamEvent,
  type StreamItem,
} from '../../kernel/contract/index.js'
import type { ToolBoon } from './tool-boons.js'
import { addToolCallDelta, type StreamedToolCall } from '../../protocols/openai/streamed-tool-calls.js'

export interface RoundsSetup {
  readonly kernel: Kernel
  readonly ex: Exchange
  readonly route: string
  readonly maxRounds: number
  readonly boons: readonly ToolBoon[]
  /** The boons whose tools were called (the response header's names). */
  readonly acted: Set<string>
}

type ToolCall = StreamedToolCall

interface Usage {
  prompt_tokens?: number
  completion_tokens?: number
  total_tokens?: number
  prompt_tokens_details?: { cached_tokens?: number } | null
  completion_tokens_details?: { reasoning_tokens?: number } | null
}

type Message = Record<string, unknown>
type Body = Record<string, unknown> & {
  messages: Message[]
  tools?: unknown[]
  stream_options?: Record<string, unknown>
}

/** Adds one round's usage to the sum so far (the fields OpenAI's usage carries). */
function addUsage(sum: Usage | undefined, more: Usage | undefined): Usage | undefined {
  if (!more) return sum
  if (!sum) return structuredClone(more)
  const n = (a?: number, b?: number) => (a ?? 0) + (b ?? 0)
  return {
    ...sum,
    prompt_tokens: n(sum.prompt_tokens, more.prompt_tokens),
    completion_tokens: n(sum.completion_tokens, more.completion_tokens),
    total_tokens: n(sum.total_tokens, more.total_tokens),
    prompt_tokens_details: {
      ...(sum.prompt_tokens_details ?? {}),
      cached_tokens: n(sum.prompt_tokens_details?.cached_tokens, more.prompt_tokens_details?.cached_tokens),
    },
    ...(sum.completion_tokens_details || more.completion_tokens_details
      ? {
          completion_tokens_details: {
            ...(sum.completion_tokens_details ?? {}),
            reasoning_tokens: n(
              sum.completion_tokens_details?.reasoning_tokens,
              more.completion_tokens_details?.reasoning_tokens,
            ),
          },
        }
      : {}),
  }
}

class Rounds {
  private readonly byName: Map<string, ToolBoon>
  private readonly messages: Message[]
  private readonly appendices: string[] = []
  usage: Usage | undefined
  round = 0

  constructor(
    private readonly s: RoundsSetup,
    private readonly base: Body,
  ) {
    this.byName = new Map(s.boons.map((b) => [b.tool.function.name, b]))
    this.messages = [...base.messages]
  }

  get last(): boolean {
    return this.round >= this.s.maxRounds
  }

  /** The body of this round: the conversation so far, and the boons' tools unless it is the last round. */
  body(stream: boolean): Body {
    const tools = [...(this.base.tools ?? []), ...(this.last ? [] : this.s.boons.map((b) => b.tool))]
    const body: Body = { ...this.base, messages: [...this.messages], stream }
    if (tools.length > 0) body.tools = tools
    else {
      delete body.tools
      delete body.tool_choice
    }
    if (stream) body.stream_options = { ...(this.base.stream_options ?? {}), include_usage: true }
    else delete body.stream_options
    return body
  }

  call(stream: boolean): Promise<CallResult> {
    const { kernel, ex, route } = this.s
    return kernel.call(route, this.body(stream), { principal: ex.principal, signal: ex.signal, parentId: ex.id })
  }

  /**
   * A round has ended: its usage, summed into what the client is told, is recorded on the
   * client request too (the round's own record is charged; the client request is not).
   */
  told(res: CallResult): void {
    const model = res.usage.model
    if (model !== undefined) this.s.ex.usage.relay(res.usage.used(), model)
  }

  isBoonCall(call: ToolCall): boolean {
    return this.byName.has(call.function.name)
  }

  /** Whether the gateway runs this round's calls and asks again: all calls are the boons', and rounds are left. */
  runsTools(calls: readonly ToolCall[]): boolean {
    return !this.last && calls.length > 0 && calls.every((c) => this.isBoonCall(c))
  }

  /** Runs the boons' calls in order and appends the assistant message and the tool results. */
  async runTools(content: unknown, calls: readonly ToolCall[]): Promise<void> {
    this.messages.push({
      role: 'assistant',
      content: typeof content === 'string' && content !== '' ? content : null,
      tool_calls: calls,
    })
    for (const call of calls) {
      const boon = this.byName.get(call.function.name)!
      let args: Record<string, unknown> = {}
      try {
        const parsed: unknown = JSON.parse(call.function.arguments || '{}')
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) args = parsed as Record<string, unknown>
      } catch {
        // Arguments the model got wrong: the tool says so, and the model may try again.
      }
      const out = await boon.run(args, this.s.ex)
      this.s.acted.add(boon.boon)
      if (out.appendix) this.appendices.push(out.appendix)
      this.messages.push({ role: 'tool', tool_call_id: call.id, content: out.toolMessage })
    }
    this.round++
  }

  /** The Markdown appended to the answer, with the blank line that separates it. */
  appendix(): string {
    return this.appendices.length ? `\n\n${this.appendices.join('\n\n')}` : ''
  }
}

/** The answering round's response headers (reasoning effort, model …) become the request's. */
function copyHeaders(ex: Exchange, from: CallResult): void {
  for (const [name, value] of from.headers) if (!name.endsWith('request-id')) ex.headers.set(name, value)
  // The answering round's first token is the client's first token.
  ex.usage.firstTokenAt ??= from.usage.firstTokenAt
}

const notAs = (kind: string) =>
  new GatewayError(502, 'upstream request failed', {
    code: 'upstream_failed',
    cause: new Error(`a tool boon round replied ${kind}`),
  })

/** A whole reply: rounds until the model answers; that reply, with usage summed and images appended. */
export async function answerWhole(s: RoundsSetup, base: Body): Promise<unknown> {
  const rounds = new Rounds(s, base)
  for (;;) {
    const res = await rounds.call(false)
    rounds.told(res)
    if (res.reply.kind !== 'json') throw notAs(res.reply.kind)
    const chat = res.reply.body as {
      choices?: { message?: Message & { tool_calls?: ToolCall[] }; finish_reason?: string }[]
      usage?: Usage
    }
    rounds.usage = addUsage(rounds.usage, chat.usage)
    const choice = chat.choices?.[0]
    const calls = choice?.message?.tool_calls ?? []
    if (rounds.runsTools(calls)) {
      await rounds.runTools(choice?.message?.content, calls)
      continue
    }
    copyHeaders(s.ex, res)
    if (choice?.message) {
      const own = calls.filter((c) => !rounds.isBoonCall(c))
      if (own.length > 0) choice.message.tool_calls = own
      else if (calls.length > 0) {
        delete choice.message.tool_calls
        choice.finish_reason = 'stop'
      }
      const extra = rounds.appendix()
      if (extra)
        choice.message.content = `${typeof choice.message.content === 'string' ? choice.message.content : ''}${extra}`
    }
    if (rounds.usage) chat.usage = rounds.usage
    return chat
  }
}

interface Chunk extends StreamEvent {
  choices?: {
    index?: number
    delta?: {
      content?: unknown
      tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[]
    }
    finish_reason?: string | null
  }[]
  usage?: Usage | null
}

/**
 * A streamed reply: each round is streamed; a round's events are held until it shows content
 * or a client tool call (then they flow to the client as they come) or ends with only boon
 * calls (then they are dropped and the tools run). The answer's finish chunk is preceded by
 * the images' Markdown as one content delta, and followed by the summed usage when the client
 * asked for it. The generator yields nothing before the answering round begins, so the
 * response headers (the boons that acted) are known when its first event is.
 */
export async function* answerStreamed(
  s: RoundsSetup,
  base: Body,
  clientWantsUsage: boolean,
): AsyncGenerator<StreamItem> {
  const rounds = new Rounds(s, base)
  for (;;) {
    const res = await rounds.call(true)
    if (res.reply.kind !== 'events') throw notAs(res.reply.kind)
    const calls: ToolCall[] = []
    const held: Chunk[] = []
    let flowing = false
    let content = ''
    let finish: Chunk | undefined
    let usageChunk: Chunk | undefined
    const boonIndex = (i: number) => {
      const c = calls[i]
      return c !== undefined && rounds.isBoonCall(c)
    }
    // A chunk without the boons' tool-call deltas (the client never sees the boons' calls).
    const visible = (ev: Chunk): Chunk | undefined => {
      const delta = ev.choices?.[0]?.delta
      if (!delta?.tool_calls) return ev
      const own = delta.tool_calls.filter((t) => !boonIndex(t.index))
      if (own.length === delta.tool_calls.length) return ev
      const { tool_calls: _dropped, ...rest } = delta
      if (own.length === 0 && rest.content === undefined && Object.keys(rest).length === 0) return undefined
      return { ...ev, choices: [{ ...ev.choices![0]!, delta: own.length ? { ...rest, tool_calls: own } : rest }] }
    }
    for await (const item of res.reply.events) {
      const ev = (item instanceof SerializedEvent ? item.parse() : item) as Chunk
      const choice = ev.choices?.[0]
      if (!choice) {
        if (ev.usage) {
          rounds.usage = addUsage(rounds.usage, ev.usage)
          usageChunk = ev
        }
        continue
      }
      for (const t of choice.delta?.tool_calls ?? []) addToolCallDelta(calls, t)
      if (typeof choice.delta?.content === 'string') content += choice.delta.content
      if (choice.finish_reason) {
        finish = ev
        continue
      }
      const clientCall = (choice.delta?.tool_calls ?? []).some((t) => !boonIndex(t.index))
      if (!flowing && ((typeof choice.delta?.content === 'string' && choice.delta.content !== '') || clientCall)) {
        flowing = true
        copyHeaders(s.ex, res)
        for (const h of held.splice(0)) {
          const v = visible(h)
          if (v) yield v
        }
      }
      if (!flowing) held.push(ev)
      else {
        const v = visible(ev)
        if (v) yield v
      }
    }
    rounds.told(res)
    const all = calls.filter(Boolean)
    if (rounds.runsTools(all)) {
      await rounds.runTools(content, all)
      continue
    }
    if (!flowing) {
      copyHeaders(s.ex, res)
      for (const h of held) {
        const v = visible(h)
        if (v) yield v
      }
    }
    const template = finish ?? usageChunk
    const extra = rounds.appendix()
    if (extra && template)
      yield {
        id: template.id,
        object: template.object,
        created: template.created,
        model: template.model,
        choices: [{ index: 0, delta: { content: extra }, finish_reason: null }],
      }
    if (finish) {
      const own = all.filter((c) => !rounds.isBoonCall(c))
      const f = finish.choices![0]!
      const stripped = all.length > 0 && own.length === 0 && f.finish_reason === 'tool_calls'
      yield visible(stripped ? { ...finish, choices: [{ ...f, finish_reason: 'stop' }] } : finish) ?? finish
    }
    if (clientWantsUsage && usageChunk) yield { ...usageChunk, usage: rounds.usage }
    return
  }
}
