import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { decodeRequestText, parseEnvelope, unquoteSoapAction } from '../../../plugins/soap-codec/envelope-parser.js'
import { SoapFault } from '../../../protocols/soap/fault.js'

const SOAP = 'http://schemas.xmlsoap.org/soap/envelope/'
const NS = 'http://www.example.org/schemas/GIS/10.7'
const limits = { maxDepth: 32 }

function envelope(body: string, header = ''): string {
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP}" xmlns:gis="${NS}">${header}<soap:Body>${body}</soap:Body></soap:Envelope>`
}

/** The fault a parse raises; fails the test when it parses. */
function faultOf(text: string, maxDepth = 32): SoapFault {
  try {
    parseEnvelope(text, { maxDepth })
  } catch (err) {
    if (err instanceof SoapFault) return err
    throw err
  }
  assert.unreachable('the envelope was accepted')
  throw new Error('unreachable')
}

const parse = suite('soap-codec envelope parser: accepted forms')

parse('qualified operation, unqualified argument (node-soap, ArcGIS Pro)', () => {
  const call = parseEnvelope(
    envelope('<gis:GetServiceDescriptionsEx><FolderName>Basemaps</FolderName></gis:GetServiceDescriptionsEx>'),
    limits,
    '',
  )
  assert.is(call.operation, 'GetServiceDescriptionsEx')
  assert.is(call.namespace, NS)
  assert.is(call.args.length, 1)
  assert.is(call.args[0]!.local, 'FolderName')
  assert.is(call.args[0]!.namespace, '')
  assert.is(call.args[0]!.text, 'Basemaps')
  assert.is(call.soapAction, '')
})

parse('qualified argument', () => {
  const call = parseEnvelope(
    envelope('<gis:GetServiceDescriptionsEx><gis:FolderName>A</gis:FolderName></gis:GetServiceDescriptionsEx>'),
    limits,
  )
  assert.is(call.args[0]!.local, 'FolderName')
  assert.is(call.args[0]!.namespace, NS)
  assert.is(call.args[0]!.text, 'A')
})

parse('default-namespace form', () => {
  const call = parseEnvelope(
    envelope(`<GetServiceDescriptionsEx xmlns="${NS}"><FolderName>A</FolderName></GetServiceDescriptionsEx>`),
    limits,
  )
  assert.is(call.operation, 'GetServiceDescriptionsEx')
  assert.is(call.namespace, NS)
  assert.is(call.args[0]!.local, 'FolderName')
  assert.is(call.args[0]!.namespace, NS)
})

parse('unqualified operation element', () => {
  const call = parseEnvelope(envelope('<GetFolders/>'), limits)
  assert.is(call.operation, 'GetFolders')
  assert.is(call.namespace, '')
  assert.equal(call.args, [])
})

parse('predefined entities, character references and CDATA are read; text is concatenated', () => {
  const call = parseEnvelope(
    envelope('<gis:Op><A>x &amp; y &lt;&gt;&quot;&apos; &#65;&#x42;<![CDATA[<c>]]>!</A></gis:Op>'),
    limits,
  )
  assert.is(call.args[0]!.text, `x & y <>"' AB<c>!`)
})

parse('empty argument element stays an empty string; xsi:nil is reported', () => {
  const call = parseEnvelope(
    envelope('<gis:Op xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><A></A><B xsi:nil="true"/></gis:Op>'),
    limits,
  )
  assert.is(call.args[0]!.text, '')
  assert.is(call.args[0]!.nil, false)
  assert.is(call.args[1]!.nil, true)
})

parse('headers are collected with mustUnderstand and actor', () => {
  const call = parseEnvelope(
    envelope(
      '<gis:GetFolders/>',
      `<soap:Header><h:Trace xmlns:h="urn:h" soap:mustUnderstand="1">x</h:Trace><h:Info xmlns:h="urn:h" soap:actor="urn:other"/></soap:Header>`,
    ),
    limits,
  )
  assert.is(call.headers.length, 2)
  assert.is(call.headers[0]!.local, 'Trace')
  assert.is(call.headers[0]!.namespace, 'urn:h')
  assert.is(call.headers[0]!.mustUnderstand, true)
  assert.is(call.headers[1]!.mustUnderstand, false)
  assert.is(call.headers[1]!.actor, 'urn:other')
})

parse('comments and whitespace between the envelope parts are fine; qualified trailers after Body are ignored', () => {
  const text = `<!-- c --><soap:Envelope xmlns:soap="${SOAP}">\n  <soap:Header/>\n  <soap:Body>\n <!-- x --> <GetFolders/>\n </soap:Body><t:Trailer xmlns:t="urn:t"/></soap:Envelope>\n`
  const call = parseEnvelope(text, limits)
  assert.is(call.operation, 'GetFolders')
})

parse('a UTF-8 BOM is skipped; the decoded text keeps non-ASCII', () => {
  const bytes = Buffer.concat([
    Buffer.from([0xef, 0xbb, 0xbf]),
    Buffer.from(envelope('<gis:Op><A>Zürich</A></gis:Op>'), 'utf8'),
  ])
  const call = parseEnvelope(decodeRequestText(bytes), limits)
  assert.is(call.args[0]!.text, 'Zürich')
})

parse('SOAPAction quotes are removed', () => {
  assert.is(unquoteSoapAction('""'), '')
  assert.is(unquoteSoapAction('"urn:x"'), 'urn:x')
  assert.is(unquoteSoapAction(undefined), undefined)
})

parse.run()

const refuse = suite('soap-codec envelope parser: refusals')

refuse('malformed XML → Client MalformedXml', () => {
  const f = faultOf(`<soap:Envelope xmlns:soap="${SOAP}"><soap:Body><GetFolders></soap:Body></soap:Envelope>`)
  assert.is(f.faultCode, 'Client')
  assert.is(f.detailCode, 'MalformedXml')
  assert.match(f.message, /^Malformed XML at line 1/)
})

refuse('an unclosed root → Client MalformedXml', () => {
  const f = faultOf(`<soap:Envelope xmlns:soap="${SOAP}"><soap:Body><GetFolders/></soap:Body>`)
  assert.is(f.detailCode, 'MalformedXml')
})

refuse('an unbound prefix → Client MalformedXml', () => {
  const f = faultOf(envelope('<x:GetFolders/>'))
  assert.is(f.detailCode, 'MalformedXml')
})

refuse('billion laughs: the DOCTYPE is refused and nothing is expanded', () => {
  const doctype = `<!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('')}]>`
  const f = faultOf(
    `<?xml version="1.0"?>${doctype}${envelope('<gis:GetServiceDescriptionsEx><FolderName>&lol9;</FolderName></gis:GetServiceDescriptionsEx>').replace(/^<\?xml[^>]*>/, '')}`,
  )
  assert.is(f.faultCode, 'Client')
  assert.is(f.detailCode, 'DoctypeForbidden')
})

refuse('a DOCTYPE without an internal subset is refused too', () => {
  const f = faultOf(`<!DOCTYPE soap:Envelope SYSTEM "http://127.0.0.1:9/x.dtd">${envelope('<gis:GetFolders/>')}`)
  assert.is(f.detailCode, 'DoctypeForbidden')
})

refuse('an entity that is not one of the five predefined → MalformedXml (HTML entities too)', () => {
  assert.is(faultOf(envelope('<gis:Op><A>&nbsp;</A></gis:Op>')).detailCode, 'MalformedXml')
  assert.is(faultOf(envelope('<gis:Op><A>&xxe;</A></gis:Op>')).detailCode, 'MalformedXml')
})

refuse('a processing instruction other than the XML declaration → Client', () => {
  const f = faultOf(envelope('<?evil x?><gis:GetFolders/>'))
  assert.is(f.detailCode, 'ProcessingInstructionForbidden')
})

refuse('SOAP 1.2 envelope → VersionMismatch without detail', () => {
  const f = faultOf(
    '<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body><GetFolders/></env:Body></env:Envelope>',
  )
  assert.is(f.faultCode, 'VersionMismatch')
  assert.is(f.detailCode, undefined)
})

refuse('an Envelope in another namespace → VersionMismatch; an unqualified one or another root → Client', () => {
  assert.is(faultOf('<e:Envelope xmlns:e="urn:other"><e:Body/></e:Envelope>').faultCode, 'VersionMismatch')
  assert.is(faultOf('<Envelope><Body><GetFolders/></Body></Envelope>').detailCode, 'NotAnEnvelope')
  assert.is(faultOf('<GetFolders/>').detailCode, 'NotAnEnvelope')
})

refuse('no Body → Client NoBody', () => {
  const f = faultOf(`<soap:Envelope xmlns:soap="${SOAP}"><soap:Header/></soap:Envelope>`)
  assert.is(f.detailCode, 'NoBody')
})

refuse('an empty Body → Client BodyChildCount', () => {
  assert.is(faultOf(envelope('')).detailCode, 'BodyChildCount')
  assert.is(faultOf(envelope('   \n ')).detailCode, 'BodyChildCount')
})

refuse('two Body children → Client BodyChildCount', () => {
  const f = faultOf(envelope('<gis:GetFolders/><gis:RequiresTokens/>'))
  assert.is(f.detailCode, 'BodyChildCount')
  assert.match(f.message, /2 elements/)
})

refuse('text in the Body → Client BodyChildCount', () => {
  assert.is(faultOf(envelope('hello<gis:GetFolders/>')).detailCode, 'BodyChildCount')
})

refuse('two Bodies, a Header after the Body, or an unknown envelope child → Client', () => {
  assert.is(
    faultOf(
      `<soap:Envelope xmlns:soap="${SOAP}"><soap:Body><a/></soap:Body><soap:Body><b/></soap:Body></soap:Envelope>`,
    ).faultCode,
    'Client',
  )
  assert.is(
    faultOf(`<soap:Envelope xmlns:soap="${SOAP}"><soap:Body><a/></soap:Body><soap:Header/></soap:Envelope>`).faultCode,
    'Client',
  )
  assert.is(
    faultOf(`<soap:Envelope xmlns:soap="${SOAP}"><Junk/><soap:Body><a/></soap:Body></soap:Envelope>`).detailCode,
    'NotAnEnvelope',
  )
})

refuse('text directly in the operation element → Client InvalidArgument', () => {
  assert.is(faultOf(envelope('<gis:GetFolders>junk</gis:GetFolders>')).detailCode, 'InvalidArgument')
})

refuse('nesting deeper than max_depth → Client TooDeep; exactly max_depth is fine', () => {
  // Envelope(1) Body(2) Op(3) A(4) B(5)
  const text = envelope('<gis:Op><A><B/></A></gis:Op>')
  assert.is(parseEnvelope(text, { maxDepth: 5 }).operation, 'Op')
  assert.is(faultOf(text, 4).detailCode, 'TooDeep')
  const deep = envelope(`<gis:Op>${'<a>'.repeat(100)}${'</a>'.repeat(100)}</gis:Op>`)
  assert.is(faultOf(deep, 32).detailCode, 'TooDeep')
})

refuse('a bad mustUnderstand value → Client', () => {
  const f = faultOf(
    envelope('<gis:GetFolders/>', '<soap:Header><h:T xmlns:h="urn:h" soap:mustUnderstand="yes"/></soap:Header>'),
  )
  assert.is(f.faultCode, 'Client')
})

refuse('an empty document → Client NotAnEnvelope', () => {
  assert.is(faultOf('').detailCode, 'NotAnEnvelope')
  assert.is(faultOf('  \n').detailCode, 'NotAnEnvelope')
})

refuse('encodings other than UTF-8 are refused; invalid UTF-8 is malformed', () => {
  const latin = Buffer.from(
    `<?xml version="1.0" encoding="ISO-8859-1"?>${envelope('<a/>').replace(/^<\?xml[^>]*>/, '')}`,
    'latin1',
  )
  try {
    decodeRequestText(latin)
    assert.unreachable('accepted ISO-8859-1')
  } catch (err) {
    assert.instance(err, SoapFault)
    assert.is((err as SoapFault).detailCode, 'UnsupportedEncoding')
  }
  try {
    decodeRequestText(Buffer.from([0xff, 0xfe, 0x3c, 0x00]))
    assert.unreachable('accepted UTF-16')
  } catch (err) {
    assert.is((err as SoapFault).detailCode, 'UnsupportedEncoding')
  }
  try {
    decodeRequestText(Buffer.from([0x3c, 0x61, 0xc3, 0x28, 0x3e]))
    assert.unreachable('accepted invalid UTF-8')
  } catch (err) {
    assert.is((err as SoapFault).detailCode, 'MalformedXml')
  }
})

refuse.run()
