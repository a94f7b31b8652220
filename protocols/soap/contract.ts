/**
 * The SOAP contract: the shapes that a SOAP codec step and the SOAP service step after it
 * exchange through the Exchange. Types only; no code. Plugins never import each other, so
 * both sides of a SOAP pipeline import these types from here.
 *
 * The flow on a SOAP route:
 *
 *   codec (before next)   parses the envelope and sets `ex.state.soap` (a call, or a request
 *                         for the service description when the route is `GET ?wsdl`)
 *   service step          resolves `call.operation` in its own operation table, binds the
 *                         arguments, computes the answer and sets `ex.state.soapResult`
 *                         (the values plus the table they conform to)
 *   codec (after next)    renders `soapResult` as a document/literal response or as a WSDL;
 *                         any error thrown on the way becomes a SOAP 1.1 fault.
 *
 * A step in a SOAP pipeline signals a client error by throwing `GatewayError(4xx, message,
 * { type: <SoapFaultDetailCode> })`; the codec renders it as `soap:Client` with the message
 * as faultstring and the detail code in `detail`. Anything else becomes `soap:Server`.
 */

// ---------------------------------------------------------------------------------------------
// What the codec hands to the service step

/** One element of the request body, reduced to what argument binding needs. */
export interface SoapElement {
  /** Local name (without prefix). */
  readonly local: string
  /** Namespace URI; `''` for an unqualified element. */
  readonly namespace: string
  /** Concatenated character data directly inside the element (text and CDATA), unmodified. */
  readonly text: string
  /** Child elements, in document order. */
  readonly children: readonly SoapElement[]
  /** `xsi:nil="true"` (or `"1"`) was present. */
  readonly nil: boolean
}

/** One SOAP header entry (a child of `soap:Header`). */
export interface SoapHeaderEntry {
  readonly local: string
  readonly namespace: string
  /** `soap:mustUnderstand` was `1` (or `true`). */
  readonly mustUnderstand: boolean
  /** `soap:actor`, when present. */
  readonly actor: string | undefined
  readonly element: SoapElement
}

/** A parsed SOAP 1.1 request: the one child of `soap:Body` and the header entries. */
export interface SoapCall {
  /** Local name of the Body's child: the operation to dispatch on, whatever the SOAPAction. */
  readonly operation: string
  /** Namespace URI of the Body's child (`''` when unqualified). */
  readonly namespace: string
  /** The Body child's child elements: the arguments, to bind by local name. */
  readonly args: readonly SoapElement[]
  readonly headers: readonly SoapHeaderEntry[]
  /** The SOAPAction header as received (quotes removed); informational only. */
  readonly soapAction: string | undefined
}

/** What the codec sets in `ex.state.soap` before calling the next step. */
export type SoapRequest =
  | { readonly kind: 'call'; readonly call: SoapCall }
  /** `GET <route>?wsdl`: the service step answers with its description. */
  | { readonly kind: 'describe' }

// ---------------------------------------------------------------------------------------------
// The operation table a SOAP service publishes (enough to render responses and a WSDL 1.1)

/** Built-in XML Schema types, written `xs:<name>`. */
export type SoapBuiltinType = 'xs:string' | 'xs:boolean' | 'xs:int' | 'xs:long' | 'xs:double' | 'xs:dateTime'

/** A type reference: a built-in type, or the name of a type of `SoapService.types` (unprefixed). */
// eslint-disable-next-line @typescript-eslint/ban-types
export type SoapTypeRef = SoapBuiltinType | (string & {})

/** An element of a sequence. Occurrence defaults to exactly once. */
export interface SoapField {
  readonly name: string
  readonly type: SoapTypeRef
  /** Default 1. */
  readonly minOccurs?: number
  /** Default 1; `'unbounded'` or a number above 1 makes the value an array. */
  readonly maxOccurs?: number | 'unbounded'
}

/** `xs:simpleType` restricting `xs:string` to an enumeration. */
export interface SoapEnumType {
  readonly kind: 'enum'
  readonly name: string
  readonly values: readonly string[]
}

/** `xs:complexType` with a sequence of unqualified elements. */
export interface SoapComplexType {
  readonly kind: 'complex'
  readonly name: string
  readonly fields: readonly SoapField[]
}

export type SoapType = SoapEnumType | SoapComplexType

/**
 * One document/literal wrapped operation: input element `<name>` and output element
 * `<name>Response`, each a sequence of unqualified fields.
 */
export interface SoapOperation {
  readonly name: string
  readonly input: readonly SoapField[]
  readonly output: readonly SoapField[]
}

/** The whole service: what the WSDL names and what responses are rendered against. */
export interface SoapService {
  /** Target namespace of every element and type. */
  readonly namespace: string
  /** `wsdl:service` name. */
  readonly serviceName: string
  /** `wsdl:portType` name and `wsdl:port` name. */
  readonly portName: string
  /** `wsdl:binding` name. */
  readonly bindingName: string
  /**
   * Prefix the WSDL binds to `namespace` (default `svc`). Avoid `tns`: node-soap ignores
   * that prefix when it resolves the WSDL.
   */
  readonly prefix?: string
  /**
   * Absolute endpoint URL written as `soap:address`. When absent, the codec writes the URL
   * the WSDL was requested at (without its query string).
   */
  readonly address?: string
  /** Named types, in the order the WSDL lists them. */
  readonly types: readonly SoapType[]
  /** Operations, in the order the WSDL lists them. */
  readonly operations: readonly SoapOperation[]
}

// ---------------------------------------------------------------------------------------------
// What the service step hands back to the codec

/** A value to render against a field's type. */
export type SoapValue = string | number | boolean | null | readonly SoapValue[] | SoapRecord

/** Values of a complex type's (or an operation output's) fields, by field name. */
export interface SoapRecord {
  readonly [field: string]: SoapValue
}

/** What the service step sets in `ex.state.soapResult`. */
export type SoapResult =
  | {
      readonly kind: 'response'
      readonly service: SoapService
      /** Name of an operation of `service.operations`. */
      readonly operation: string
      /** The output fields' values, by field name. */
      readonly values: SoapRecord
    }
  | { readonly kind: 'description'; readonly service: SoapService }

// ---------------------------------------------------------------------------------------------
// Faults

/** SOAP 1.1 fault codes (rendered `soap:<code>`). */
export type SoapFaultCode = 'VersionMismatch' | 'MustUnderstand' | 'Client' | 'Server'

/**
 * Codes carried in a fault's `detail`. Steps pass one as GatewayError `type` to choose it;
 * the codec picks one from the status otherwise.
 */
export type SoapFaultDetailCode =
  | 'MalformedXml'
  | 'DoctypeForbidden'
  | 'ProcessingInstructionForbidden'
  | 'UnsupportedEncoding'
  | 'TooDeep'
  | 'TooLarge'
  | 'NotAnEnvelope'
  | 'NoBody'
  | 'BodyChildCount'
  | 'UnknownOperation'
  | 'InvalidArgument'
  | 'UnknownFolder'
  | 'Unauthorized'
  | 'InvalidRequest'
  | 'Unavailable'
  | 'Internal'

// ---------------------------------------------------------------------------------------------
// The two exchange slots of a SOAP route. They are declared here rather than beside a plugin
// because the codec and whichever service step follows it both use them: `soap` is written by
// the codec, `soapResult` by the service step.

declare module '../../kernel/contract/exchange.js' {
  interface ExchangeState {
    /** Written by `soap-codec` before `next()`. */
    soap?: SoapRequest
    /** Written by the SOAP service step (e.g. `service-catalog`); read by `soap-codec`. */
    soapResult?: SoapResult
  }
}
