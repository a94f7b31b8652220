/**
 * The kernel's one ajv instance: pipeline documents, every plugin's options, config files and
 * request bodies are all validated through it, and each schema is compiled once, at load.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'

export const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false, allowUnionTypes: true })
// The one format the config uses; a full format library is not worth a dependency.
ajv.addFormat('date-time', (value: string) => /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value)))

const cache = new WeakMap<object, ValidateFunction>()

/** Compiles a schema once (by identity) and returns its validator. */
export function validatorFor(schema: object): ValidateFunction {
  const cached = cache.get(schema)
  if (cached) return cached
  const fn = ajv.compile(schema)
  cache.set(schema, fn)
  return fn
}

/** One readable line per error: `/steps/2/backend: must have required property 'endpoint'`. */
export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors?.length) return 'invalid'
  return errors
    .map((e) => {
      const where = e.instancePath || '(root)'
      if (e.keyword === 'additionalProperties')
        return `${where}: unknown property '${String(e.params.additionalProperty)}'`
      if (e.keyword === 'enum') return `${where}: ${e.message} (${(e.params.allowedValues as unknown[]).join(', ')})`
      return `${where}: ${e.message}`
    })
    .join('; ')
}
