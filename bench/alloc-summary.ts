/**
 * Sums a sampling heap profile (bench/alloc-sampling.ts) by function and by file, self bytes:
 *   node dist/bench/alloc-summary.js <file.heapprofile> [requests] [--top 30]
 * With the number of requests served while it sampled, each line also says bytes a request.
 */
import fs from 'node:fs'

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number }
  selfSize: number
  children: ProfileNode[]
}

const [file, requestsArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'))
if (!file) throw new Error('usage: alloc-summary <file.heapprofile> [requests] [--top 30]')
const requests = Number(requestsArg ?? 0)
const topAt = process.argv.indexOf('--top')
const top = topAt === -1 ? 30 : Number(process.argv[topAt + 1])
const root = (JSON.parse(fs.readFileSync(file, 'utf8')) as { head: ProfileNode }).head

const byFunction = new Map<string, number>()
const byFile = new Map<string, number>()
let total = 0
const short = (url: string) => url.replace(/^file:\/\/.*?\/(dist|node_modules)\//, '$1/') || '(native)'
for (const stack: ProfileNode[] = [root]; stack.length > 0; ) {
  const node = stack.pop()!
  stack.push(...node.children)
  if (node.selfSize === 0) continue
  const { functionName, url, lineNumber } = node.callFrame
  const where = short(url)
  const fn = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + node.selfSize)
  byFile.set(where, (byFile.get(where) ?? 0) + node.selfSize)
  total += node.selfSize
}

const line = (bytes: number, name: string) =>
  `${(bytes / 1048576).toFixed(1).padStart(9)} MB ${(requests > 0 ? `${(bytes / requests).toFixed(0)} B/req` : '').padStart(12)}  ${name}`
process.stdout.write(`${line(total, 'all sampled allocations')}\n\nby function:\n`)
for (const [name, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top))
  process.stdout.write(`${line(bytes, name)}\n`)
process.stdout.write('\nby file:\n')
for (const [name, bytes] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, top))
  process.stdout.write(`${line(bytes, name)}\n`)
