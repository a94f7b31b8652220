/**
 * Nesting, measured before a parser sees the document: the parsers and html-to-text recurse
 * once per level, so a document nested thousands deep would exhaust the stack or take minutes
 * (5,000 list levels on one line, 200,000 nested divs). Both scans are linear and stop as soon
 * as the limit is passed.
 */

/**
 * Markdown containers opened at the start of each line: block quote markers (`>`) and list
 * markers (`-`, `*`, `+`, `1.`, `1)`) followed by a space, one after the other. Indentation
 * alone is not counted (code is often indented deep); the parsed tree is checked as well.
 */
export function markdownNesting(source: string, stopAbove: number): number {
  let deepest = 0
  let i = 0
  const n = source.length
  while (i < n) {
    let depth = 0
    for (;;) {
      let j = i
      while (j < n && j - i < 3 && source.charCodeAt(j) === 32) j++
      const c = source.charCodeAt(j)
      if (c === 62 /* > */) {
        depth++
        i = j + 1
      } else if ((c === 45 || c === 42 || c === 43) /* - * + */ && isSpace(source.charCodeAt(j + 1))) {
        depth++
        i = j + 1
      } else if (c >= 48 && c <= 57) {
        let k = j
        while (k < n && k - j < 9 && isDigit(source.charCodeAt(k))) k++
        const m = source.charCodeAt(k)
        if ((m === 46 || m === 41) /* . ) */ && isSpace(source.charCodeAt(k + 1))) {
          depth++
          i = k + 1
        } else break
      } else break
      while (i < n && isSpace(source.charCodeAt(i))) i++
      if (depth > stopAbove) return depth
    }
    if (depth > deepest) deepest = depth
    const eol = source.indexOf('\n', i)
    if (eol < 0) break
    i = eol + 1
  }
  return deepest
}

const isSpace = (c: number) => c === 32 || c === 9
const isDigit = (c: number) => c >= 48 && c <= 57

/** The depth of a tree of `children`, without recursion. */
export function treeDepth(root: { children?: unknown }, stopAbove: number): number {
  let deepest = 0
  const stack: Array<[{ children?: unknown }, number]> = [[root, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (depth > deepest) {
      deepest = depth
      if (deepest > stopAbove) return deepest
    }
    if (Array.isArray(node.children)) for (const child of node.children) stack.push([child, depth + 1])
  }
  return deepest
}

/** Elements that hold no content, and elements whose end tag may be left out (they do not nest). */
const VOID = new Set(
  'area base br col embed hr img input link meta param source track wbr keygen command basefont frame isindex'.split(
    ' ',
  ),
)
const OPTIONAL_END = new Set(
  'p li dt dd tr td th thead tbody tfoot option optgroup colgroup caption rb rp rt rtc'.split(' '),
)
/** Their content is text, not markup. */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'noscript', 'plaintext'])

/**
 * HTML elements open at once, at most, as a tolerant parser would nest them: a close tag closes
 * up to its matching open element, void and self-closed elements do not nest, and elements
 * whose end tag is optional are not counted (a page of unclosed `<p>`s is not deep).
 */
export function htmlNesting(html: string, stopAbove: number): number {
  const open: string[] = []
  let deepest = 0
  let i = 0
  const n = html.length
  const TAG = /<(\/?)([A-Za-z][A-Za-z0-9:-]*)/y
  while (i < n) {
    const lt = html.indexOf('<', i)
    if (lt < 0) break
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4)
      i = end < 0 ? n : end + 3
      continue
    }
    TAG.lastIndex = lt
    const m = TAG.exec(html)
    if (!m) {
      i = lt + 1
      continue
    }
    const gt = html.indexOf('>', TAG.lastIndex)
    if (gt < 0) break
    const name = m[2]!.toLowerCase()
    i = gt + 1
    if (m[1]) {
      const at = open.lastIndexOf(name)
      if (at >= 0) open.length = at
      continue
    }
    if (VOID.has(name) || OPTIONAL_END.has(name) || html.charCodeAt(gt - 1) === 47 /* / */) continue
    if (RAW_TEXT.has(name)) {
      const close = indexOfCloseTag(html, name, i)
      i = close < 0 ? n : close
      continue
    }
    open.push(name)
    if (open.length > deepest) {
      deepest = open.length
      if (deepest > stopAbove) return deepest
    }
  }
  return deepest
}

function indexOfCloseTag(html: string, name: string, from: number): number {
  const re = new RegExp(`</${name}\\s*>`, 'gi')
  re.lastIndex = from
  const m = re.exec(html)
  return m ? m.index : -1
}
