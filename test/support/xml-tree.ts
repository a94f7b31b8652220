/** A small XML tree for assertions on documents the gateway writes (strict sax: throws on anything malformed). */
import sax from 'sax'

export interface Node {
  name: string
  attributes: Record<string, string>
  children: Node[]
  text: string
}

/** Parses XML into a small tree (strict sax: throws on anything malformed). */
export function tree(xml: string): Node {
  const parser = sax.parser(true, {})
  const root: Node = { name: '#document', attributes: {}, children: [], text: '' }
  const stack: Node[] = [root]
  parser.onerror = (e) => {
    throw e
  }
  parser.onopentag = (tag) => {
    const node: Node = { name: tag.name, attributes: tag.attributes as Record<string, string>, children: [], text: '' }
    stack[stack.length - 1]!.children.push(node)
    stack.push(node)
  }
  parser.onclosetag = () => void stack.pop()
  parser.ontext = (t) => void (stack[stack.length - 1]!.text += t)
  parser.write(xml).close()
  return root.children[0]!
}

export function child(node: Node, name: string): Node {
  const found = node.children.find((c) => c.name === name)
  if (found === undefined) throw new Error(`no <${name}> in <${node.name}>`)
  return found
}
