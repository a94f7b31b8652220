/**
 * Type-level tests of the plugin contract. Nothing here runs: `npm run typecheck` (and the build)
 * checks this file with the rest of the project. Each `@ts-expect-error` line must fail to
 * compile, and a directive whose line compiles is itself an error, so these hold both ways.
 */
import { definePlugin, type AnyPlugin, type ConfigOf } from '../../kernel/contract/plugin.js'
import type { Slot } from '../../kernel/contract/exchange.js'
import maxTokens from '../../plugins/max-tokens/index.js'
import { configSchema as maxTokensSchema, type MaxTokensConfig } from '../../plugins/max-tokens/schema.js'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
function assertType<T extends true>(): void {}

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
