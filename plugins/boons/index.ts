/**
 * boons: the add-ons the gateway gives a model (models.yaml `boons`). The client turns them
 * all off for a request with `x-gateway-boons: off`; the response's `x-gateway-boons` lists
 * the ones that acted. They run as a list, in order:
 * - `vision` (vision.ts): a helper model describes images for a text-only model;
 * - the tool boons (tool-boons.ts, tool-rounds.ts): `web_search` and `image_generation` give the
 *   model a tool the gateway runs itself; when a model has one, the request is answered by
 *   rounds through the internal chat route instead of the steps after this one;
 * - `speculation` (speculation.ts), last: a draft model answers and the model checks it; an
 *   accepted draft is the reply.
 */
import {
  definePlugin,
  reply,
  type Exchange,
  type Kernel,
  type Narrowed,
  type StreamItem,
} from '../../kernel/contract/index.js'
import { boonActs } from '../../domains/gateway/boons.js'
import { speculateFor } from './speculation.js'
import { configSchema, type BoonsConfig } from './schema.js'
import { describeImages } from './vision.js'
import { toolBoonsFor, type ToolBoon } from './tool-boons.js'
import type { ModelConfig } from '../../schemas/models.schema.js'
import { answerStreamed, answerWhole } from './tool-rounds.js'

declare module '../../kernel/contract/index.js' {
  interface ExchangeState {
    boons?: { acted: string[] }
  }
}

type ChatBody = Record<string, unknown> & {
  messages: Record<string, unknown>[]
  tools?: { function?: { name?: string } }[]
  stream?: boolean
  tool_choice?: unknown
}

/** A boon that prepares the request before the model answers it; resolves with whether it acted. */
interface PreparingBoon {
  readonly name: string
  prepare(kernel: Kernel, config: BoonsConfig, ex: Narrowed<'model'>): Promise<boolean>
}

/** The boons that change the request, in the order they run (a new one is one more entry). */
const preparing: readonly PreparingBoon[] = [
  {
    name: 'vision',
    async prepare(kernel, config, ex) {
      const model = ex.state.model.model
      const helper = model.boons?.vision?.helper_model
      const body = ex.body as { messages?: { content?: unknown }[] }
      if (!helper || !boonActs(model, 'vision') || !Array.isArray(body.messages)) return false
      const n = await describeImages(kernel, ex, body.messages, {
        route: config.route,
        prompt: config.describe_prompt,
        maxTokens: config.describe_max_tokens,
        helper,
      })
      return n > 0
    },
  },
]

/** Resumes a generator whose first step was already taken. */
async function* resumed(
  first: IteratorResult<StreamItem>,
  rest: AsyncIterator<StreamItem>,
): AsyncGenerator<StreamItem> {
  try {
    if (!first.done) yield first.value
    for (let r = first; !r.done; ) {
      r = await rest.next()
      if (!r.done) yield r.value
    }
  } finally {
    await rest.return?.()
  }
}

export default definePlugin({
  name: 'boons',
  config: configSchema,
  requires: ['model'],
  setup(config, kernel) {
    const route = config.route
    const speculations = kernel.metrics.counter(
      'sluice_speculation_total',
      'Speculation boon outcomes: accepted, rejected (by the check or cut) and skipped (draft or check failed).',
    )
    // The tool boons of each model, made once per load (a reload makes a new setup).
    const toolBoons = new Map<string, ToolBoon[]>()
    const toolBoonsOf = (model: ModelConfig): ToolBoon[] => {
      let boons = toolBoons.get(model.id)
      if (!boons) toolBoons.set(model.id, (boons = toolBoonsFor(kernel, config, model)))
      return boons
    }
    const acting = (ex: Exchange, acted: Iterable<string>) => {
      const names = [...acted]
      ex.state.boons = { acted: names }
      if (names.length > 0) ex.headers.set(`${ex.headerPrefix}boons`, names.join(', '))
    }
    const withBoons = async (ex: Narrowed<'model'>, next: () => Promise<void>): Promise<void> => {
      const acted = new Set<string>()
      for (const boon of preparing) if (await boon.prepare(kernel, config, ex)) acted.add(boon.name)
      const body = ex.body as ChatBody
      const model = ex.state.model.model
      // `tool_choice: none` asks for no tool at all; the client's own tool of the same name wins.
      let tools = body.tool_choice === 'none' ? [] : toolBoonsOf(model)
      if (tools.length > 0 && body.tools?.length) {
        const own = new Set(body.tools.map((t) => t.function?.name))
        tools = tools.filter((b) => !own.has(b.tool.function.name))
      }
      if (tools.length === 0 || !Array.isArray(body.messages)) {
        // Speculation last: the draft reads the request as the model would (images already
        // described). It never applies with tools, so it cannot meet the tool boons' rounds.
        const speculation = await speculateFor(kernel, ex, model, body, config)
        if (speculation) speculations.inc({ outcome: speculation.kind })
        // "Acted" = a draft was made and judged, accepted or rejected; a skipped one did not act.
        if (speculation && speculation.kind !== 'skipped') acted.add('speculation')
        acting(ex, acted)
        // An accepted draft is the reply: the model is not called.
        if (speculation?.kind === 'accepted') ex.reply = speculation.reply
        else await next()
        return
      }
      // The rounds ask the answering model by its own id, at the reasoning level this request was served.
      const served = ex.state.reasoning?.served
      const base: ChatBody = {
        ...body,
        model: model.id,
        ...(model.reasoning?.mode === 'mapped' && served ? { reasoning_effort: served } : {}),
      }
      const setup = { kernel, ex, route, maxRounds: config.max_rounds, boons: tools, acted }
      if (body.stream === true) {
        const wantsUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true
        const events = answerStreamed(setup, base, wantsUsage)
        // The rounds before the answer run now, so the header can say which boons acted.
        const first = await events.next()
        acting(ex, acted)
        ex.reply = reply.events(resumed(first, events), { terminator: '[DONE]' })
      } else {
        const answer = await answerWhole(setup, base)
        acting(ex, acted)
        ex.reply = reply.json(answer)
      }
    }
    return {
      // Not async when no boon can act (boons off, or a model with none): no await on that path.
      request(ex, next) {
        if (!ex.state.model.model.boons || ex.header(`${ex.headerPrefix}boons`)?.trim().toLowerCase() === 'off') {
          acting(ex, [])
          return next()
        }
        return withBoons(ex, next)
      },
    }
  },
})
