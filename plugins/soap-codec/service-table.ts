/**
 * Checks a SoapService table once (names are NCNames, every type reference resolves, every
 * operation is unique) and indexes it for rendering. A table that fails is a bug of the
 * service step, reported as `soap:Server`.
 */
import type { SoapBuiltinType, SoapField, SoapOperation, SoapService, SoapType } from '../../protocols/soap/contract.js'
import { isNcName } from './xml-writer.js'

export const BUILTIN_TYPES: ReadonlySet<string> = new Set<SoapBuiltinType>([
  'xs:string',
  'xs:boolean',
  'xs:int',
  'xs:long',
  'xs:double',
  'xs:dateTime',
])

export interface IndexedService {
  readonly service: SoapService
  readonly prefix: string
  readonly types: ReadonlyMap<string, SoapType>
  readonly operations: ReadonlyMap<string, SoapOperation>
}

const indexed = new WeakMap<SoapService, IndexedService>()

export function isRepeated(field: SoapField): boolean {
  const max = field.maxOccurs ?? 1
  return max === 'unbounded' || max > 1
}

/** Indexes (and on first sight checks) a service table. Throws Error when it is inconsistent. */
export function indexService(service: SoapService): IndexedService {
  const known = indexed.get(service)
  if (known !== undefined) return known

  const problems: string[] = []
  const prefix = service.prefix ?? 'svc'
  for (const [what, name] of [
    ['prefix', prefix],
    ['service name', service.serviceName],
    ['port name', service.portName],
    ['binding name', service.bindingName],
  ] as const) {
    if (!isNcName(name)) problems.push(`${what} '${name}' is not an XML name`)
  }
  if (prefix === 'xs' || prefix === 'soap' || prefix === 'xsi' || prefix === 'xml')
    problems.push(`prefix '${prefix}' is reserved`)
  if (service.namespace === '') problems.push('namespace is empty')

  const types = new Map<string, SoapType>()
  for (const t of service.types) {
    if (!isNcName(t.name)) problems.push(`type '${t.name}' is not an XML name`)
    if (types.has(t.name)) problems.push(`type '${t.name}' is declared twice`)
    types.set(t.name, t)
    if (t.kind === 'enum' && t.values.length === 0) problems.push(`enumeration '${t.name}' has no values`)
  }
  const checkFields = (owner: string, fields: readonly SoapField[]) => {
    const seen = new Set<string>()
    for (const f of fields) {
      if (!isNcName(f.name)) problems.push(`${owner}: field '${f.name}' is not an XML name`)
      if (seen.has(f.name)) problems.push(`${owner}: field '${f.name}' appears twice`)
      seen.add(f.name)
      if (!BUILTIN_TYPES.has(f.type) && !types.has(f.type))
        problems.push(`${owner}: field '${f.name}' has unknown type '${f.type}'`)
      const min = f.minOccurs ?? 1
      const max = f.maxOccurs ?? 1
      if (min < 0 || (max !== 'unbounded' && max < Math.max(min, 1)))
        problems.push(`${owner}: field '${f.name}' has bad occurrence bounds`)
    }
  }
  for (const t of service.types) if (t.kind === 'complex') checkFields(`type ${t.name}`, t.fields)

  const operations = new Map<string, SoapOperation>()
  for (const op of service.operations) {
    if (!isNcName(op.name)) problems.push(`operation '${op.name}' is not an XML name`)
    if (operations.has(op.name)) problems.push(`operation '${op.name}' is declared twice`)
    operations.set(op.name, op)
    checkFields(`operation ${op.name} input`, op.input)
    checkFields(`operation ${op.name} output`, op.output)
  }
  const elementNames = new Set<string>()
  for (const op of service.operations) {
    for (const el of [op.name, `${op.name}Response`]) {
      if (elementNames.has(el)) problems.push(`element '${el}' would be declared twice`)
      elementNames.add(el)
    }
  }
  if (problems.length > 0) throw new Error(`invalid SOAP service table: ${problems.join('; ')}`)

  const result: IndexedService = { service, prefix, types, operations }
  indexed.set(service, result)
  return result
}
