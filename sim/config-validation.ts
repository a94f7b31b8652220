/**
 * Validation of simulator settings: the whole config (defaults filled in by ajv, as everywhere
 * in Sluice) and the partial changes POST /admin/config accepts. Both validators are compiled
 * once, on first use.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { simConfigSchema, type SimConfig, type SimConfigInput } from './schema.js'

/** Runtime changes: latency and failure only, each field optional (no defaults, so nothing unsent is reset). */
export const adminPatchSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    latency: simConfigSchema.properties.latency,
    failure: simConfigSchema.properties.failure,
  },
} as const

export interface AdminPatch {
  latency?: Partial<SimConfig['latency']>
  failure?: Partial<SimConfig['failure']>
}

let configValidator: ValidateFunction | undefined
let patchValidator: ValidateFunction | undefined

function describe(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ')
}

export class SimConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SimConfigError'
  }
}

/** Checks a config and returns a copy with every default filled in; the input is not changed. */
export function validateSimConfig(input: SimConfigInput | unknown, source = 'simulator config'): SimConfig {
  configValidator ??= new Ajv({ useDefaults: true, allErrors: true }).compile(simConfigSchema)
  const copy: unknown = structuredClone(input)
  if (!configValidator(copy)) throw new SimConfigError(`${source}: ${describe(configValidator.errors)}`)
  const config = copy as SimConfig
  const names = new Set<string>()
  for (const model of config.models) {
    if (names.has(model.name)) throw new SimConfigError(`${source}: model \`${model.name}\` is listed twice`)
    names.add(model.name)
  }
  return config
}

/** Checks a runtime change; returns undefined and the reason when it is invalid. */
export function validateAdminPatch(input: unknown): { patch: AdminPatch } | { error: string } {
  patchValidator ??= new Ajv({ allErrors: true }).compile(adminPatchSchema)
  if (!patchValidator(input)) return { error: describe(patchValidator.errors) }
  return { patch: input as AdminPatch }
}
