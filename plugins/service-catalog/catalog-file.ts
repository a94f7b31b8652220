/**
 * `config/catalog.yaml`: what the SOAP catalog says about itself (namespace, address, message
 * version and formats, tokens), who may call it, and where its list of folders and services
 * comes from (static lists here, or a live REST catalog).
 */
import type { FromSchema } from 'json-schema-to-ts'
import { describeErrors, validatorFor } from '../../kernel/contract/index.js'
import { MESSAGE_FORMATS, PLATFORM_VERSIONS } from './enumerations.js'

const serviceEntry = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'type'],
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      pattern: '^[^/\\s]+(/[^/\\s]+)?$',
      description:
        'Service name as the catalog reports it: `Name` for a root service, `Folder/Name` for one in a folder.',
    },
    type: {
      type: 'string',
      pattern: '^[A-Za-z][A-Za-z0-9]*$',
      description:
        'Service type, e.g. MapServer, FeatureServer, GPServer, GeocodeServer, or an extension type such as WMSServer.',
    },
    parent_type: {
      type: 'string',
      pattern: '^([A-Za-z][A-Za-z0-9]*)?$',
      default: '',
      description:
        'For an extension type (WMSServer, KmlServer …): the type of the service it extends, usually MapServer. Empty for other services.',
    },
    capabilities: { type: 'string', default: '', description: 'Comma-separated capabilities, e.g. `Map,Query,Data`.' },
    description: { type: 'string', default: '', description: 'Free text.' },
    url: {
      type: 'string',
      default: '',
      description:
        'The service URL; empty: `<services_url>/<name>/<type>` (`…/<name>/<parent_type>/<type>` for an extension).',
    },
  },
} as const

export const catalogFileSchema = {
  $id: 'sluice:catalog',
  type: 'object',
  additionalProperties: false,
  required: ['namespace'],
  properties: {
    namespace: {
      type: 'string',
      minLength: 1,
      description: 'XML namespace of every element and type of the catalog (clients read it from the WSDL).',
    },
    public_url: {
      type: 'string',
      pattern: '^(https?://\\S+)?$',
      default: '',
      description:
        'Absolute URL of the catalog endpoint, written as the WSDL soap:address. Empty: the URL the WSDL was requested at.',
    },
    services_url: {
      type: 'string',
      pattern: '^(https?://\\S+)?$',
      default: '',
      description:
        'Base of every ServiceDescription Url (`…/services`). Empty: derived from rest.url (`…/rest/services` → `…/services`); a static service with no services_url needs its own url.',
    },
    message_version: {
      type: 'string',
      enum: PLATFORM_VERSIONS,
      default: 'gisPlatformVersion107',
      description: 'Answer of GetMessageVersion.',
    },
    message_formats: {
      type: 'string',
      enum: MESSAGE_FORMATS,
      default: 'gisServiceCatalogMessageFormatSoap',
      description: 'Answer of GetMessageFormats.',
    },
    tokens: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'What the catalog tells clients about the tokens its services need.',
      properties: {
        required: {
          type: 'boolean',
          default: false,
          description: 'Answer of RequiresTokens: whether the listed services need tokens.',
        },
        service_url: {
          type: 'string',
          default: '',
          description: 'Answer of GetTokenServiceURL: the token service address (empty when none).',
        },
      },
    },
    access: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'Who may call the catalog itself.',
      properties: {
        require_token: {
          type: 'boolean',
          default: false,
          description:
            'false (default): the catalog is public and read-only. true: every request (the WSDL too) must present a gateway API key as `?token=<key>` or `Authorization: Bearer <key>`, unless an earlier auth step already identified the caller.',
        },
      },
    },
    source: {
      type: 'string',
      enum: ['static', 'rest'],
      default: 'static',
      description: 'Where the folders and services come from.',
    },
    static: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'The lists served when source is static.',
      properties: {
        folders: {
          type: 'array',
          items: { type: 'string', pattern: '^[^/\\s]+$' },
          uniqueItems: true,
          default: [],
          description:
            'Folder names, in the order GetFolders lists them. The root folder has no name and is not listed.',
        },
        services: {
          type: 'array',
          items: serviceEntry,
          default: [],
          description: 'Services, in the order the catalog lists them.',
        },
      },
    },
    rest: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'The live REST catalog read when source is rest.',
      properties: {
        url: {
          type: 'string',
          pattern: '^(https?://\\S+)?$',
          default: '',
          description:
            'Base URL of the REST catalog, e.g. https://gis.example.org/arcgis/rest/services (`?f=json` is added).',
        },
        ttl_seconds: {
          type: 'integer',
          minimum: 0,
          maximum: 86400,
          default: 300,
          description: 'How long a fetched catalog is served before it is fetched again.',
        },
        stale_seconds: {
          type: 'integer',
          minimum: 0,
          maximum: 604800,
          default: 3600,
          description: 'How long past its TTL a catalog may still be served while the REST catalog is failing.',
        },
        timeout_ms: {
          type: 'integer',
          minimum: 100,
          maximum: 120000,
          default: 5000,
          description: 'Time limit of one fetch of the root or of a folder.',
        },
        max_bytes: {
          type: 'integer',
          minimum: 1024,
          maximum: 67108864,
          default: 4194304,
          description: 'Largest JSON document accepted from the REST catalog.',
        },
        token: {
          type: 'string',
          default: '',
          description: 'Token sent as `token=` to the REST catalog (empty: none).',
        },
        types: {
          type: 'array',
          items: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9]*$' },
          uniqueItems: true,
          default: [],
          description:
            'List only services of these types (e.g. the SOAP-capable ones); empty: every type the REST catalog lists.',
        },
      },
    },
  },
} as const

export type CatalogFile = FromSchema<typeof catalogFileSchema>
export type StaticServiceEntry = NonNullable<CatalogFile['static']>['services'][number]

export class CatalogFileError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CatalogFileError'
  }
}

/** The folder part of `Folder/Name` (`''` for a root service). */
export function folderOf(name: string): string {
  const i = name.lastIndexOf('/')
  return i < 0 ? '' : name.slice(0, i)
}

/** Validates the parsed YAML (defaults applied) and cross-checks it. Throws CatalogFileError. */
export function checkCatalogFile(fileName: string, raw: unknown): CatalogFile {
  const validate = validatorFor(catalogFileSchema)
  const copy = structuredClone(raw ?? {})
  if (!validate(copy)) throw new CatalogFileError(`${fileName}: ${describeErrors(validate.errors)}`)
  const file = copy as CatalogFile

  if (file.source === 'rest') {
    if (file.rest.url === '') throw new CatalogFileError(`${fileName}: source is rest but rest.url is empty`)
    if (file.services_url === '' && restServicesUrl(file.rest.url) === undefined) {
      throw new CatalogFileError(
        `${fileName}: services_url is empty and cannot be derived from rest.url (it does not end in /rest/services)`,
      )
    }
  }
  if (file.source === 'static') {
    const folders = new Set(file.static.folders)
    const seen = new Set<string>()
    for (const [i, s] of file.static.services.entries()) {
      const folder = folderOf(s.name)
      if (folder !== '' && !folders.has(folder)) {
        throw new CatalogFileError(
          `${fileName}: /static/services/${i} (${s.name}): folder '${folder}' is not in static.folders`,
        )
      }
      if (file.services_url === '' && (s.url ?? '') === '') {
        throw new CatalogFileError(`${fileName}: /static/services/${i} (${s.name}): needs url, or set services_url`)
      }
      const key = `${s.name}\u0000${s.type}`
      if (seen.has(key))
        throw new CatalogFileError(`${fileName}: /static/services/${i}: ${s.name} (${s.type}) is listed twice`)
      seen.add(key)
    }
  }
  return file
}

/** `https://h/arcgis/rest/services` → `https://h/arcgis/services`; undefined for other shapes. */
export function restServicesUrl(restUrl: string): string | undefined {
  let url: URL
  try {
    url = new URL(restUrl)
  } catch {
    return undefined
  }
  const path = url.pathname.replace(/\/+$/, '')
  if (!/\/rest\/services$/i.test(path)) return undefined
  return `${url.origin}${path.slice(0, -'/rest/services'.length)}/services`
}
