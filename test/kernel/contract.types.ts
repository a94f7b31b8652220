/**
 * Type-level tests of the plugin contract. Nothing here runs: `npm run typecheck` (and the build)
 * checks this file with the rest of the project. Each `@ts-expect-error` line must fail to
 * compile, and a directive whose line compiles is itself an error, so these hold both ways.
 */
import {
  definePlugin,
  type AnyPlugin,
  type ConfigOf,
  type Narrowed,
  type Phases,
  type StateOf,
} from '../../kernel/contract/plugin.js'
import type { Exchange, Slot } from '../../kernel/contract/exchange.js'
import type { Kernel } from '../../kernel/contract/kernel.js'
import { chatRequestSchema, type ChatRequest } from '../../schemas/chat-request.schema.js'
import maxTokens from '../../plugins/max-tokens/index.js'
import type { configSchema as maxTokensSchema, MaxTokensConfig } from '../../plugins/max-tokens/schema.js'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
function assertType<_T extends true>(): void {}

// 1. The config type is inferred from the schema: no type argument.

assertType<Equal<Parameters<typeof maxTokens.setup>[0], MaxTokensConfig>>()
assertType<Equal<Parameters<typeof maxTokens.setup>[0], { limit: number; mode: 'clamp' | 'refuse' }>>()
assertType<Equal<ConfigOf<typeof maxTokensSchema>, MaxTokensConfig>>()

const typedSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', description: 'Required, no default.' },
    size: { type: 'integer', default: 3, description: 'Has a default: ajv fills it in, so it is present.' },
    note: { type: 'string', description: 'Neither required nor defaulted: may be absent.' },
    mode: { type: 'string', enum: ['a', 'b'], default: 'a', description: 'An enum.' },
  },
} as const

export const typed = definePlugin({
  name: 'typed',
  config: typedSchema,
  setup(config) {
    assertType<Equal<typeof config, { name: string; size: number; note?: string; mode: 'a' | 'b' }>>()
    const size: number = config.size
    // @ts-expect-error a property with neither `default` nor `required` may be absent
    const note: string = config.note
    // @ts-expect-error not an option of the schema (the config is not `any`)
    void config.colour
    // @ts-expect-error not one of the enum's values
    if (config.mode === 'c') return {}
    return { request: async (_ex, next) => next(), close: () => void [size, note] }
  },
})

// A plugin of any config is still an AnyPlugin (what the registry holds).
export const plugins: AnyPlugin[] = [maxTokens, typed]

// 2. Slot names in `requires` and `provides` are checked.

const noOptions = { type: 'object', additionalProperties: false, properties: {} } as const

export const slots = definePlugin({
  name: 'slots',
  config: noOptions,
  // Slots that plugins declare (model, queue …) and the kernel's own fact `principal`.
  requires: ['principal', 'model', 'upload', 'soap'],
  provides: ['queue', 'maxTokens', 'soapResult'],
  setup: () => ({}),
})

export const requiresTypo = definePlugin({
  name: 'requires-typo',
  config: noOptions,
  // @ts-expect-error 'modle' is not a slot of ExchangeState
  requires: ['modle'],
  setup: () => ({}),
})

export const providesTypo = definePlugin({
  name: 'provides-typo',
  config: noOptions,
  // @ts-expect-error 'queu' is not a slot of ExchangeState
  provides: ['queu'],
  setup: () => ({}),
})

assertType<Equal<'model' extends Slot ? true : false, true>>()
assertType<Equal<'principal' extends Slot ? true : false, true>>()
assertType<Equal<'modle' extends Slot ? true : false, false>>()
// A plugin's name is not a slot unless the plugin declares one by that name.
assertType<Equal<'model-catalog' extends Slot ? true : false, false>>()

// 3. Options are refused at compile time where the schema says so.

export const badSchema = definePlugin({
  name: 'bad-schema',
  // @ts-expect-error not a JSON Schema
  config: { type: 'objekt' },
  setup: () => ({}),
})

// 4. The state `open` makes (awaited) is the type `setup` receives: no type argument; without
// `open` it is undefined.

export const withState = definePlugin({
  name: 'with-state',
  config: noOptions,
  async open(kernel) {
    return { openedAt: kernel.now(), close() {} }
  },
  setup(_config, _kernel, state) {
    assertType<Equal<typeof state, { openedAt: number; close(): void }>>()
    // @ts-expect-error not a member of what open returned (the state is not `any`)
    void state.ledger
    return {}
  },
})
assertType<Equal<StateOf<typeof withState>, { openedAt: number; close(): void }>>()

export const syncState = definePlugin({
  name: 'sync-state',
  config: noOptions,
  open: () => new Map<string, number>(),
  setup: (_config, _kernel, state) => ({ close: () => state.clear() }),
})
assertType<Equal<StateOf<typeof syncState>, Map<string, number>>>()

export const stateless = definePlugin({
  name: 'stateless',
  config: noOptions,
  setup(_config, _kernel, state) {
    assertType<Equal<typeof state, undefined>>()
    return {}
  },
})

// Plugins with state are AnyPlugins too.
export const withStates: AnyPlugin[] = [withState, syncState, stateless]

// 5. Defaults: a property whose schema has a `default` is present in `setup`'s config (ajv fills
//    it in at load, `useDefaults`), so `config.x ?? <default>` is dead code; one without may be absent.

export const defaultsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    route: { type: 'string', default: 'chat-internal' },
    model: { type: 'string' },
    cache: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: { size: { type: 'integer', default: 10 }, label: { type: 'string' } },
    },
  },
} as const

export const defaulted = definePlugin({
  name: 'defaulted',
  config: defaultsSchema,
  setup(config) {
    type Config = typeof config
    assertType<Equal<undefined extends Config['route'] ? true : false, false>>()
    assertType<Equal<undefined extends Config['model'] ? true : false, true>>()
    // An object with a default `{}` is present, and so are its own defaulted properties.
    assertType<Equal<undefined extends Config['cache'] ? true : false, false>>()
    assertType<Equal<undefined extends Config['cache']['size'] ? true : false, false>>()
    assertType<Equal<undefined extends Config['cache']['label'] ? true : false, true>>()
    const route: string = config.route
    const size: number = config.cache.size
    // @ts-expect-error no default: may be absent
    const model: string = config.model
    return { close: () => void [route, size, model] }
  },
})

// 6. `requires` narrows the Exchange of the phases: the loader refuses a route in which no
//    earlier step provides a required slot, so the slot is present, without `!`.

export const narrowed = definePlugin({
  name: 'narrowed',
  config: noOptions,
  requires: ['model', 'principal'],
  setup: () => ({
    async request(ex, next) {
      assertType<Equal<typeof ex, Narrowed<'model' | 'principal'>>>()
      const id: string = ex.state.model.model.id
      const keyId: string = ex.principal.keyId
      // @ts-expect-error not required: an earlier step may not have filled it
      const waited: number = ex.state.queue.waitedMs
      void [id, keyId, waited]
      await next()
    },
    chunk: (ex, event) => (ex.state.model.model.id ? event : null),
    finish(ex) {
      void ex.principal.group
    },
  }),
})

export const unnarrowed = definePlugin({
  name: 'unnarrowed',
  config: noOptions,
  setup: () => ({
    async request(ex, next) {
      assertType<Equal<typeof ex, Exchange>>()
      // @ts-expect-error without `requires`, a slot may be absent
      void ex.state.model.model
      // @ts-expect-error without `requires`, so may the principal
      void ex.principal.keyId
      await next()
    },
  }),
})

// The narrowed phases are still the loader's phases of the plain Exchange, and the plugins AnyPlugins.
export const phasesOfRoute: Phases[] = [
  narrowed.setup({}, {} as Kernel, undefined, { pipeline: '', route: '', file: '' }) as Phases,
]
export const narrowedPlugins: AnyPlugin[] = [narrowed, unnarrowed, defaulted]

// 7. A plugin that declares its body schema sees `ex.body` typed by it; without one, `unknown`.

export const chatBodied = definePlugin({
  name: 'chat-bodied',
  config: noOptions,
  requires: ['model'],
  body: chatRequestSchema,
  setup: () => ({
    async request(ex, next) {
      assertType<Equal<typeof ex.body, ChatRequest>>()
      const first: string | undefined = ex.body.messages?.[0]?.role
      const id: string = ex.state.model.model.id
      // @ts-expect-error not a field of the chat request (the body is not `any`)
      void ex.body.colour.length
      void [first, id]
      await next()
    },
  }),
})

export const unbodied = definePlugin({
  name: 'unbodied',
  config: noOptions,
  setup: () => ({
    async request(ex, next) {
      assertType<Equal<typeof ex.body, unknown>>()
      await next()
    },
  }),
})
export const bodiedPlugins: AnyPlugin[] = [chatBodied, unbodied]
