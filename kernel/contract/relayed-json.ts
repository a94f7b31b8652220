/**
 * A whole JSON reply kept as the text a model server sent, with the object the plugin parsed
 * from it. The kernel writes the server's text as it came (no second serialization) unless a
 * step read `body` after it was set: a step that reads the object may change it in place, so
 * from then on the reply is serialized from the object, as any `reply.json` is. To a step it is
 * a plain `JsonReply`.
 */
import type { JsonReply } from './reply.js'

export class RelayedJson implements JsonReply {
  readonly kind = 'json'
  /** The server's text while no step has read `body`. */
  private text: string | undefined

  constructor(
    text: string,
    private object: unknown,
    public status = 200,
  ) {
    this.text = text
  }

  get body(): unknown {
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
