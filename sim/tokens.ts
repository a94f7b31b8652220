/**
 * The simulator's tokenizer. There is no real vocabulary, so prompt text is cut into pieces of
 * four UTF-8 bytes (≈ the usual "four characters per token" of English) and each piece's id
 * packs its bytes, which makes /detokenize exact for anything /tokenize produced. Chat
 * messages get a few framing tokens each, as a chat template adds them.
 *
 * Output is counted differently on purpose: generated text is emitted one word (with its
 * leading space) per token, so the number of streamed pieces always equals
 * `completion_tokens`.
 */

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** Special tokens: small ids, as in real vocabularies. */
export const specialTokens = {
  bos: 0,
  imStart: 1,
  imEnd: 2,
  image: 3,
} as const

const roleTokenIds: Record<string, number> = { system: 4, user: 5, assistant: 6, tool: 7, developer: 8 }
const otherRoleTokenId = 9
const specialTexts = new Map<number, string>([
  [specialTokens.bos, '<s>'],
  [specialTokens.imStart, '<|im_start|>'],
  [specialTokens.imEnd, '<|im_end|>'],
  [specialTokens.image, '<|image|>'],
  [4, 'system\n'],
  [5, 'user\n'],
  [6, 'assistant\n'],
  [7, 'tool\n'],
  [8, 'developer\n'],
  [otherRoleTokenId, 'other\n'],
])

/** Byte pieces start above the special ids; an id is base + (packed bytes × 4 + length − 1). */
const pieceBase = 16
const bytesPerToken = 4
/** Image tokens live far above byte pieces; the low bits say which image, so caching sees it. */
const imageBase = 2 ** 40
export const tokensPerImage = 256

export function roleTokenId(role: string): number {
  return roleTokenIds[role] ?? otherRoleTokenId
}

/** Appends the tokens of `text` to `out`. */
export function encodeTextInto(text: string, out: number[]): void {
  const bytes = encoder.encode(text)
  for (let i = 0; i < bytes.length; i += bytesPerToken) {
    const length = Math.min(bytesPerToken, bytes.length - i)
    let packed = 0
    for (let j = 0; j < length; j++) packed = packed * 256 + (bytes[i + j] ?? 0)
    out.push(pieceBase + packed * 4 + (length - 1))
  }
}

export function encodeText(text: string): number[] {
  const out: number[] = []
  encodeTextInto(text, out)
  return out
}

/** Token count of a text without building the list (same rule as encodeText). */
export function countTextTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / bytesPerToken)
}

/** The 256 tokens of one image; the same URL always gives the same tokens. */
export function appendImageTokens(imageKey: number, out: number[]): void {
  const id = imageBase + (imageKey % 2 ** 20)
  for (let i = 0; i < tokensPerImage; i++) out.push(id)
}

/** Bytes of one byte-piece id, or undefined for special and image ids. */
function pieceBytes(id: number): number[] | undefined {
  if (!Number.isInteger(id) || id < pieceBase || id >= imageBase) return undefined
  const value = id - pieceBase
  const length = (value % 4) + 1
  let packed = Math.floor(value / 4)
  const bytes = new Array<number>(length)
  for (let j = length - 1; j >= 0; j--) {
    bytes[j] = packed % 256
    packed = Math.floor(packed / 256)
  }
  return bytes
}

/** The text of each token, for `return_token_strs` (pieces may split a multi-byte character). */
export function tokenStrings(ids: readonly number[]): string[] {
  return ids.map((id) => decodeTokens([id]))
}

export function decodeTokens(ids: readonly number[]): string {
  let text = ''
  let pending: number[] = []
  const flush = (): void => {
    if (pending.length > 0) text += decoder.decode(Uint8Array.from(pending))
    pending = []
  }
  for (const id of ids) {
    const bytes = pieceBytes(id)
    if (bytes) {
      pending.push(...bytes)
      continue
    }
    flush()
    text += specialTexts.get(id) ?? (id >= imageBase ? '<|image|>' : '<unk>')
  }
  flush()
  return text
}

/**
 * Cuts generated text into output tokens: each piece is one word with the whitespace before
 * it, so joining the pieces gives the text back exactly.
 */
export function splitWords(text: string): string[] {
  const pieces: string[] = text.match(/\s*\S+/g) ?? []
  const trailing = text.match(/\s+$/)
  if (trailing && pieces.length > 0) pieces[pieces.length - 1] += trailing[0]
  else if (trailing) pieces.push(trailing[0])
  return pieces
}

/** Characters in one output token of structured text (JSON): what a character budget is reckoned in. */
export const charsPerToken = bytesPerToken

/** Cuts structured text (JSON) into four-character output tokens, like the prompt rule. */
export function splitFixed(text: string, size = charsPerToken): string[] {
  const pieces: string[] = []
  const chars = Array.from(text)
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''))
  return pieces
}
