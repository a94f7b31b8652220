/**
 * The catalog's operation table (the one the codec dispatches on, renders against and
 * describes in the WSDL) and the seven operations themselves.
 */
import { GatewayError } from '../../kernel/contract/index.js'
import type { SoapCall, SoapOperation, SoapRecord, SoapService, SoapType } from '../../protocols/soap/contract.js'
import { MESSAGE_FORMATS, PLATFORM_VERSIONS, type MessageFormat, type PlatformVersion } from './enumerations.js'

export const SERVICE_NAME = 'Catalog'
export const PORT_NAME = 'ServiceCatalogPort'
export const BINDING_NAME = 'ServiceCatalogBinding'
/** WSDL prefix of the namespace; `gis` as in the spec's names (node-soap ignores `tns`). */
export const WSDL_PREFIX = 'gis'

/** The catalog's types, in WSDL order. */
export const CATALOG_TYPES: readonly SoapType[] = [
  { kind: 'enum', name: 'gisServiceCatalogMessageFormat', values: MESSAGE_FORMATS },
  { kind: 'enum', name: 'gisPlatformVersion', values: PLATFORM_VERSIONS },
  {
    kind: 'complex',
    name: 'ArrayOfString',
    fields: [{ name: 'String', type: 'xs:string', minOccurs: 0, maxOccurs: 'unbounded' }],
  },
  {
    kind: 'complex',
    name: 'ServiceDescription',
    fields: [
      { name: 'Name', type: 'xs:string' },
      { name: 'Type', type: 'xs:string' },
      { name: 'Url', type: 'xs:string' },
      { name: 'ParentType', type: 'xs:string' },
      { name: 'Capabilities', type: 'xs:string' },
      { name: 'Description', type: 'xs:string' },
    ],
  },
  {
    kind: 'complex',
    name: 'ArrayOfServiceDescription',
    fields: [{ name: 'ServiceDescription', type: 'ServiceDescription', minOccurs: 0, maxOccurs: 'unbounded' }],
  },
]

/** The seven operations, in the order of the original WSDL. */
export const CATALOG_OPERATIONS: readonly SoapOperation[] = [
  { name: 'GetMessageVersion', input: [], output: [{ name: 'MessageVersion', type: 'gisPlatformVersion' }] },
  {
    name: 'GetMessageFormats',
    input: [],
    output: [{ name: 'MessageFormats', type: 'gisServiceCatalogMessageFormat' }],
  },
  { name: 'GetTokenServiceURL', input: [], output: [{ name: 'TokenServiceURL', type: 'xs:string' }] },
  { name: 'GetFolders', input: [], output: [{ name: 'FolderNames', type: 'ArrayOfString' }] },
  {
    name: 'GetServiceDescriptions',
    input: [],
    output: [{ name: 'ServiceDescriptions', type: 'ArrayOfServiceDescription' }],
  },
  { name: 'RequiresTokens', input: [], output: [{ name: 'Result', type: 'xs:boolean' }] },
  {
    name: 'GetServiceDescriptionsEx',
    input: [{ name: 'FolderName', type: 'xs:string' }],
    output: [{ name: 'ServiceDescriptions', type: 'ArrayOfServiceDescription' }],
  },
]

/** The table published to the codec. `address` absent: the codec uses the requested URL. */
export function catalogService(namespace: string, address: string | undefined): SoapService {
  return {
    namespace,
    serviceName: SERVICE_NAME,
    portName: PORT_NAME,
    bindingName: BINDING_NAME,
    prefix: WSDL_PREFIX,
    ...(address === undefined ? {} : { address }),
    types: CATALOG_TYPES,
    operations: CATALOG_OPERATIONS,
  }
}

// ---------------------------------------------------------------------------------------------
// The catalog's content, whatever its source

/** One ServiceDescription, with the folder it is listed under. */
export interface CatalogEntry {
  readonly name: string
  readonly type: string
  readonly url: string
  readonly parentType: string
  readonly capabilities: string
  readonly description: string
  /** `''` for the root folder. */
  readonly folder: string
}

export interface CatalogSnapshot {
  /** Folder names, in listing order. */
  readonly folders: readonly string[]
  /** Every service, root services and those of every folder, in listing order. */
  readonly services: readonly CatalogEntry[]
}

/** Where the folders and services come from (static YAML, or a live REST catalog). */
export interface CatalogSource {
  snapshot(signal?: AbortSignal): Promise<CatalogSnapshot>
  close(): void | Promise<void>
}

/** What the catalog says about itself (from config/catalog.yaml). */
export interface CatalogAnswers {
  readonly messageVersion: PlatformVersion
  readonly messageFormats: MessageFormat
  readonly tokensRequired: boolean
  readonly tokenServiceUrl: string
}

// ---------------------------------------------------------------------------------------------
// Dispatch

const operationsByName = new Map(CATALOG_OPERATIONS.map((op) => [op.name, op]))

/** The operation a call names, by local name; its namespace must be the catalog's (or none). */
export function resolveOperation(call: SoapCall, namespace: string): SoapOperation {
  const op = operationsByName.get(call.operation)
  if (op === undefined || (call.namespace !== '' && call.namespace !== namespace)) {
    const shown = call.namespace === '' ? call.operation : `{${call.namespace}}${call.operation}`
    throw new GatewayError(400, `Unknown operation '${shown}'.`, { type: 'UnknownOperation' })
  }
  return op
}

/**
 * Binds the call's arguments to the operation's input fields by local name, whatever their
 * namespace (qualified, unqualified or default-namespace forms all bind). Every declared
 * argument must appear exactly once, as text; anything else is a client error.
 */
export function bindArguments(op: SoapOperation, call: SoapCall): Record<string, string> {
  const bad = (message: string) => new GatewayError(400, message, { type: 'InvalidArgument' })
  const fields = new Map(op.input.map((f) => [f.name, f]))
  const values: Record<string, string> = {}
  for (const arg of call.args) {
    const field = fields.get(arg.local)
    if (field === undefined) throw bad(`${op.name} has no argument '${arg.local}'.`)
    if (Object.hasOwn(values, arg.local)) throw bad(`Argument '${arg.local}' of ${op.name} is given more than once.`)
    if (arg.nil) throw bad(`Argument '${arg.local}' of ${op.name} must not be nil.`)
    if (arg.children.length > 0) throw bad(`Argument '${arg.local}' of ${op.name} must be a string, not elements.`)
    values[arg.local] = arg.text
  }
  for (const field of op.input) {
    if (!Object.hasOwn(values, field.name) && (field.minOccurs ?? 1) > 0)
      throw bad(`${op.name} needs the argument '${field.name}'.`)
  }
  return values
}

function descriptions(entries: readonly CatalogEntry[]): SoapRecord {
  return {
    ServiceDescription: entries.map((e) => ({
      Name: e.name,
      Type: e.type,
      Url: e.url,
      ParentType: e.parentType,
      Capabilities: e.capabilities,
      Description: e.description,
    })),
  }
}

/** `''`, `/` and surrounding blanks name the root; folder names match case-insensitively. */
function findFolder(snapshot: CatalogSnapshot, requested: string): string | undefined {
  const wanted = requested.trim().replace(/^\/+|\/+$/g, '')
  if (wanted === '') return ''
  const exact = snapshot.folders.find((f) => f === wanted)
  if (exact !== undefined) return exact
  const lower = wanted.toLowerCase()
  return snapshot.folders.find((f) => f.toLowerCase() === lower)
}

/** Runs one operation. Throws GatewayError 400 (UnknownFolder) for a folder the catalog lacks. */
export async function runOperation(
  op: SoapOperation,
  args: Readonly<Record<string, string>>,
  answers: CatalogAnswers,
  source: CatalogSource,
  signal?: AbortSignal,
): Promise<SoapRecord> {
  switch (op.name) {
    case 'GetMessageVersion':
      return { MessageVersion: answers.messageVersion }
    case 'GetMessageFormats':
      return { MessageFormats: answers.messageFormats }
    case 'GetTokenServiceURL':
      return { TokenServiceURL: answers.tokenServiceUrl }
    case 'RequiresTokens':
      return { Result: answers.tokensRequired }
    case 'GetFolders': {
      const snapshot = await source.snapshot(signal)
      return { FolderNames: { String: snapshot.folders } }
    }
    case 'GetServiceDescriptions': {
      const snapshot = await source.snapshot(signal)
      return { ServiceDescriptions: descriptions(snapshot.services) }
    }
    case 'GetServiceDescriptionsEx': {
      const snapshot = await source.snapshot(signal)
      const requested = args.FolderName ?? ''
      const folder = findFolder(snapshot, requested)
      if (folder === undefined)
        throw new GatewayError(400, `Folder '${requested}' does not exist.`, { type: 'UnknownFolder' })
      return { ServiceDescriptions: descriptions(snapshot.services.filter((s) => s.folder === folder)) }
    }
    default:
      throw new Error(`service-catalog: operation ${op.name} has no implementation`)
  }
}
