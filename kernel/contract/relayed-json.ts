/**
 * A whole JSON reply kept as the text a model server sent, with the object parsed from it (or,
 * made `unparsed`, parsed if a step asks). The kernel writes the server's text as it came unless
 * a step read `body`: a step may change the object in place, so from then on the reply is
 * serialized from the object, as any `reply.json` is. To a step it is a plain `JsonReply`.
 */
import type { JsonReply } from './reply.js'

const UNPARSED = Symbol('unparsed')

export class RelayedJson implements JsonReply {
  readonly kind = 'json'
  constructor(
    private text: string | undefined,
    private object: unknown,
    public status = 200,
  ) {}

  /** A reply read off the event loop (a large one): most never have their object asked for. */
  static unparsed = (text: string, status = 200) => new RelayedJson(text, UNPARSED, status)

  get body(): unknown {
    if (this.object === UNPARSED) this.object = JSON.parse(this.text!)
    this.text = undefined
    return this.object
  }

  set body(value: unknown) {
    this.text = undefined
    this.object = value
  }

  /** What goes on the wire: the server's own text, unless the object was read or replaced. */
  serialize(): string {
    return this.text ?? JSON.stringify(this.object)
  }
}

/** The JSON text of a whole reply. */
export function jsonText(reply: JsonReply): string {
  return reply instanceof RelayedJson ? reply.serialize() : JSON.stringify(reply.body)
}
