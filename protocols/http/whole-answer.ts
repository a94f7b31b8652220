/**
 * An HTTP answer read whole: its status, content type and bytes, the text decoded when first
 * read, once (the backend's worker reads a large one's bytes: decoding 79 MB took 63 ms).
 *
 * A class, not an object literal with a `text` getter: the getter's closure kept the whole
 * dispatch that made it alive (its options, headers and handler), so an answer still held at a
 * young collection kept that too, and the gateway promoted and marked far more under load
 * (docs/performance.md, "A getter that kept a request alive").
 */
export class WholeAnswer {
  private decoded: string | undefined

  constructor(
    readonly status: number,
    readonly contentType: string | undefined,
    readonly bytes: Buffer,
  ) {}

  get text(): string {
    this.decoded ??= this.bytes.toString('utf8')
    return this.decoded
  }
}
