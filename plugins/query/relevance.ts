/**
 * The `restricted` mode's check before a model is asked: whether any retrieved passage shares
 * a content word with the question. When none does, the collection cannot hold the answer and
 * the service says so itself, at no model cost. A deliberately plain test (lower-cased words
 * of three letters or more, less a short stop list, a final "s" dropped): it only decides when
 * there is plainly nothing; the system prompt's instruction covers the rest with a real model.
 */
const STOP = new Set(
  'the and for are but not you all any can had her was one our out has his how its may new now old see two who did get let put say she too use what when where which while with from that this than then them they their there these those have into about after again also been being both does doing down each few more most much must only other over same some such very just will would could should shall your yours what why whom'.split(
    ' ',
  ),
)

export function contentWords(text: string): Set<string> {
  const words = new Set<string>()
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (raw.length < 3 || STOP.has(raw)) continue
    words.add(raw.length > 3 && raw.endsWith('s') ? raw.slice(0, -1) : raw)
  }
  return words
}

/** True when some passage shares a content word with the question. */
export function bearsOnQuestion(question: string, passages: readonly { text: string }[]): boolean {
  const asked = contentWords(question)
  if (asked.size === 0) return passages.length > 0
  return passages.some((p) => {
    for (const w of contentWords(p.text)) if (asked.has(w)) return true
    return false
  })
}
