/**
 * Malformed and hostile XML for the SOAP catalog (POST /catalog): truncated envelopes, DOCTYPEs
 * with entities (billion laughs, external ones pointing at a closed loopback port), deep nesting,
 * wrong namespaces, bad encodings, processing instructions, character references XML forbids,
 * oversize bodies, garbage. A valid envelope calls one of the seven operations.
 */
import type { FuzzRandom } from './random.js'

export interface XmlMutation {
  readonly mutation: string
  readonly contentType: string
  readonly body: Buffer
}

const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/'
const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope'
const CATALOG = 'http://www.example.org/schemas/GIS/10.7'

const operations = [
  '<gis:GetMessageVersion/>',
  '<gis:GetMessageFormats/>',
  '<gis:GetTokenServiceURL/>',
  '<gis:GetFolders/>',
  '<gis:GetServiceDescriptions/>',
  '<gis:GetServiceDescriptionsEx><FolderName>Specialty</FolderName></gis:GetServiceDescriptionsEx>',
  '<gis:RequiresTokens/>',
]

function envelope(body: string, { soapNs = SOAP11, catalogNs = CATALOG, header = '' } = {}): string {
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${soapNs}" xmlns:gis="${catalogNs}">${header}<soap:Body>${body}</soap:Body></soap:Envelope>`
}

const noDecl = (xml: string) => xml.replace(/^<\?xml[^>]*>/, '')

type Maker = (
  rng: FuzzRandom,
  op: string,
  maxBytes: number,
) => { mutation: string; body: string | Buffer; contentType?: string }

const makers: Record<string, Maker> = {
  truncated(rng, op) {
    const xml = envelope(op)
    const cut = rng.int(0, xml.length - 1)
    return { mutation: `cut at ${cut} of ${xml.length}`, body: xml.slice(0, cut) }
  },
  'billion laughs'(rng, op) {
    const levels = rng.int(1, 12)
    const entities = ['<!ENTITY l0 "lol">']
    for (let i = 1; i <= levels; i++) entities.push(`<!ENTITY l${i} "${`&l${i - 1};`.repeat(10)}">`)
    const call = op.includes('FolderName')
      ? op.replace('Specialty', `&l${levels};`)
      : `<gis:GetServiceDescriptionsEx><FolderName>&l${levels};</FolderName></gis:GetServiceDescriptionsEx>`
    return {
      mutation: `${levels} levels of entities`,
      body: `<?xml version="1.0"?><!DOCTYPE soap:Envelope [${entities.join('')}]>${noDecl(envelope(call))}`,
    }
  },
  'external entity'(rng) {
    const target = rng.pick([
      'http://127.0.0.1:9/x.dtd',
      'file:///etc/passwd',
      '/etc/hostname',
      'http://169.254.169.254/latest/meta-data/',
    ])
    const form = rng.pick(['general', 'parameter', 'doctype'])
    const dtd =
      form === 'general'
        ? `[<!ENTITY x SYSTEM "${target}">]`
        : form === 'parameter'
          ? `[<!ENTITY % p SYSTEM "${target}"> %p;]`
          : `SYSTEM "${target}"`
    return {
      mutation: `${form} entity to ${target}`,
      body: `<!DOCTYPE soap:Envelope ${dtd}>${noDecl(envelope('<gis:GetServiceDescriptionsEx><FolderName>&x;</FolderName></gis:GetServiceDescriptionsEx>'))}`,
    }
  },
  'deep nesting'(rng, _op, maxBytes) {
    const depth = Math.min(rng.pick([31, 32, 33, 100, 1_000, 100_000]), Math.floor(maxBytes / 8))
    const inner = '<a>'.repeat(depth) + (rng.chance(0.5) ? '</a>'.repeat(depth) : '')
    return {
      mutation: `${depth} nested elements`,
      body: envelope(`<gis:GetServiceDescriptionsEx><FolderName>${inner}</FolderName></gis:GetServiceDescriptionsEx>`),
    }
  },
  'wrong namespace'(rng, op) {
    const which = rng.pick([
      'SOAP 1.2 envelope',
      'no envelope namespace',
      'unknown envelope namespace',
      'operation in another namespace',
      'unbound prefix',
      'empty catalog namespace',
    ])
    const body =
      which === 'SOAP 1.2 envelope'
        ? envelope(op, { soapNs: SOAP12 })
        : which === 'no envelope namespace'
          ? envelope(op).replace(` xmlns:soap="${SOAP11}"`, '')
          : which === 'unknown envelope namespace'
            ? envelope(op, { soapNs: 'urn:fuzz' })
            : which === 'operation in another namespace'
              ? envelope(op, { catalogNs: 'urn:not-the-catalog' })
              : which === 'unbound prefix'
                ? envelope(op.replace(/gis:/g, 'zz:'))
                : envelope(op, { catalogNs: '' })
    return {
      mutation: which,
      body,
      contentType: which === 'SOAP 1.2 envelope' ? 'application/soap+xml; charset=utf-8' : undefined,
    }
  },
  'bad encoding'(rng, op) {
    const which = rng.pick([
      'declared UTF-16',
      'UTF-16 with BOM',
      'declared ISO-8859-1 with latin-1 bytes',
      'invalid UTF-8 in text',
      'declared EBCDIC',
      'UTF-8 BOM',
      'charset=utf-16 header',
    ])
    const xml = envelope(op)
    if (which === 'declared UTF-16') return { mutation: which, body: xml.replace('utf-8', 'UTF-16') }
    if (which === 'UTF-16 with BOM')
      return {
        mutation: which,
        body: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml.replace('utf-8', 'UTF-16'), 'utf16le')]),
      }
    if (which === 'declared ISO-8859-1 with latin-1 bytes')
      return {
        mutation: which,
        body: Buffer.from(
          envelope(
            '<gis:GetServiceDescriptionsEx><FolderName>Sp\u00e9cialt\u00e9</FolderName></gis:GetServiceDescriptionsEx>',
          ).replace('utf-8', 'ISO-8859-1'),
          'latin1',
        ),
      }
    if (which === 'invalid UTF-8 in text') {
      const [head, tail] = envelope(
        '<gis:GetServiceDescriptionsEx><FolderName>X</FolderName></gis:GetServiceDescriptionsEx>',
      ).split('X')
      return {
        mutation: which,
        body: Buffer.concat([
          Buffer.from(head!),
          Buffer.from([rng.pick([0xff, 0xc0, 0xed]), 0xa0, 0x80]),
          Buffer.from(tail!),
        ]),
      }
    }
    if (which === 'declared EBCDIC') return { mutation: which, body: xml.replace('utf-8', 'EBCDIC-US') }
    if (which === 'UTF-8 BOM')
      return { mutation: which, body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(xml)]) }
    return { mutation: which, body: xml, contentType: 'text/xml; charset=utf-16' }
  },
  'forbidden markup'(rng, op) {
    const which = rng.pick([
      'processing instruction',
      'CDATA folder',
      'comment',
      'undefined entity',
      'NUL reference',
      'surrogate reference',
      'reference past U+10FFFF',
      'control character',
      'second XML declaration',
    ])
    const folder = (v: string) =>
      envelope(`<gis:GetServiceDescriptionsEx><FolderName>${v}</FolderName></gis:GetServiceDescriptionsEx>`)
    const bodies: Record<string, string> = {
      'processing instruction': envelope(`<?fuzz do-something?>${op}`),
      'CDATA folder': folder('<![CDATA[Specialty]]>'),
      comment: folder('Spe<!-- x -->cialty'),
      'undefined entity': folder('&nbsp;'),
      'NUL reference': folder('&#0;'),
      'surrogate reference': folder('&#xD800;'),
      'reference past U+10FFFF': folder('&#x110000;'),
      'control character': folder('a\u0001b'),
      'second XML declaration': `<?xml version="1.0"?>${envelope(op)}`,
    }
    return { mutation: which, body: bodies[which]! }
  },
  'wrong structure'(rng, op) {
    const which = rng.pick([
      'no Body',
      'empty Body',
      'two operations',
      'unknown operation',
      'missing argument',
      'repeated argument',
      'extra argument',
      'nil argument',
      'structured argument',
      'mustUnderstand header',
      'text in Body',
      'root not Envelope',
      'attributes galore',
    ])
    const bodies: Record<string, string> = {
      'no Body': `<soap:Envelope xmlns:soap="${SOAP11}"><soap:Header/></soap:Envelope>`,
      'empty Body': envelope(''),
      'two operations': envelope(op + op),
      'unknown operation': envelope('<gis:DeleteEverything/>'),
      'missing argument': envelope('<gis:GetServiceDescriptionsEx/>'),
      'repeated argument': envelope(
        '<gis:GetServiceDescriptionsEx><FolderName>a</FolderName><FolderName>b</FolderName></gis:GetServiceDescriptionsEx>',
      ),
      'extra argument': envelope('<gis:GetFolders><FolderName>x</FolderName></gis:GetFolders>'),
      'nil argument': envelope(
        '<gis:GetServiceDescriptionsEx><FolderName xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:nil="true"/></gis:GetServiceDescriptionsEx>',
      ),
      'structured argument': envelope(
        '<gis:GetServiceDescriptionsEx><FolderName><b>x</b></FolderName></gis:GetServiceDescriptionsEx>',
      ),
      'mustUnderstand header': envelope(op, {
        header: `<soap:Header><w:S xmlns:w="urn:fuzz" soap:mustUnderstand="${rng.pick(['1', 'true', '0', 'x'])}"/></soap:Header>`,
      }),
      'text in Body': envelope(`hello${op}`),
      'root not Envelope': `<gis:GetFolders xmlns:gis="${CATALOG}"/>`,
      'attributes galore': envelope(
        `<gis:GetFolders ${Array.from({ length: rng.size(10, 20_000) }, (_, i) => `a${i}="v"`).join(' ')}/>`,
      ),
    }
    return { mutation: which, body: bodies[which]! }
  },
  'hostile folder'(rng) {
    const folder = rng.pick([
      '',
      '/',
      '   ',
      '../..',
      'a'.repeat(100_000),
      '\u{1F600}',
      'Specialty/../..',
      '%00',
      '<>'.replace('<', '&lt;'),
    ])
    return {
      mutation: `FolderName ${JSON.stringify(folder.slice(0, 30))}${folder.length > 30 ? `… (${folder.length})` : ''}`,
      body: envelope(`<gis:GetServiceDescriptionsEx><FolderName>${folder}</FolderName></gis:GetServiceDescriptionsEx>`),
    }
  },
  oversize(rng, op, maxBytes) {
    const pad = rng.size(1024 * 1024 - 400, Math.max(1024 * 1024 + 1, maxBytes))
    return {
      mutation: `padded to about ${pad} bytes`,
      body: envelope(op, { header: `<soap:Header><!--${'x'.repeat(pad)}--></soap:Header>` }),
    }
  },
  'not XML'(rng) {
    const which = rng.pick(['empty', 'JSON', 'random bytes', 'HTML', 'only a declaration'])
    const n = rng.size(1, 4096)
    const bodies: Record<string, string | Buffer> = {
      empty: '',
      JSON: '{"GetFolders":{}}',
      'random bytes': rng.bytes(n),
      HTML: '<html><body>hi',
      'only a declaration': '<?xml version="1.0"?>',
    }
    return { mutation: which, body: bodies[which]! }
  },
}

export const xmlMutationNames = Object.keys(makers)

export function xmlMutation(rng: FuzzRandom, maxBytes: number): XmlMutation {
  const name = rng.pick(xmlMutationNames)
  const made = makers[name]!(rng, rng.pick(operations), maxBytes)
  return {
    mutation: `${name}: ${made.mutation}`,
    contentType:
      made.contentType ??
      rng.pick([
        'text/xml; charset=utf-8',
        'text/xml; charset=utf-8',
        'text/xml',
        'application/xml',
        'application/json',
      ]),
    body: Buffer.isBuffer(made.body) ? made.body : Buffer.from(made.body),
  }
}
