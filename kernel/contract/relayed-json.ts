/**
 * A whole JSON reply kept as the text (or, a large one read off the event loop, the bytes) a model
 * server sent, with the object parsed from it (or, `unparsed`, parsed if a step asks). The kernel
 * writes what the server sent unless a step read `body`: a step may change the object in place,
 * so from then on the reply is serialized from the object. To a step it is a plain `JsonReply`.
 */
import type { JsonReply } from './reply.js'

const UNPARSED = Symbol('unparsed')

export class RelayedJson implements JsonReply {
  readonly kind = 'json'
  constructor(
    private raw: string | Buffer | undefined,
    private object: unknown,
    public status = 200,
  ) {}

  /** A reply read off the event loop (a large one): most never have their object asked for. */
  static unparsed = (raw: string | Buffer, status = 200) => new RelayedJson(raw, UNPARSED, status)

  get body(): unknown {
    if (this.object === UNPARSED) this.object = JSON.parse(String(this.raw))
    this.raw = undefined
    return this.object
  }

  set body(value: unknown) {
    this.raw = undefined
    this.object = value
  }

  /** What goes on the wire: what the server sent (bytes as they are), unless the object was read or replaced. */
  serialize(): string | Buffer {
    return this.raw ?? JSON.stringify(this.object)
  }
}

/** The JSON text of a whole reply. */
export function jsonText(reply: JsonReply): string {
  return String(reply instanceof RelayedJson ? reply.serialize() : JSON.stringify(reply.body))
}
