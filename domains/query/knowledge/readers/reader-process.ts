/**
 * One reader process: how it is started, what crosses its channel, and what its end means.
 *
 * A process and not a thread, because a thread's memory stays with the gateway after the thread
 * has ended: the C allocator keeps the arenas it grew into (after issue 31's hostile documents,
 * 176 → 357 MB two minutes later, with the main heap back to 33 MB). A process gives all of it
 * back when it exits (docs/decisions.md, "Document limits: … readers in child processes").
 *
 * It is started with its own flags only, never the gateway's (`--expose-gc`, `--inspect`, a
 * `--max-old-space-size` of the operator's, `NODE_OPTIONS` preloads): its heap limit
 * (`memory_mb`, V8's `--max-old-space-size`) and a stack as deep as the reader threads had.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { overLimit, type ReaderLimits } from './limits.js'
import { errorOf, type ReaderTask, type ReadOutcome, type Refusal } from './reader-task.js'

const CHILD = fileURLToPath(new URL('./reader-child.js', import.meta.url))

/** What the gateway sends a reader: one document at a time. */
export interface ToReader {
  readonly id: number
  readonly task: ReaderTask
}

/** What a reader answers: that it is ready, then each document's outcome or refusal, with its resident memory after it. */
export type FromReader =
  | { readonly ready: true }
  | { readonly id: number; readonly ok: true; readonly result: ReadOutcome; readonly rss: number }
  | { readonly id: number; readonly ok: false; readonly refusal: Refusal; readonly rss: number }

/**
 * The stack of a reader, in KiB (V8's `--stack-size`): the 4 MiB the reader threads had, less a
 * margin. The main thread's stack is the system's (`ulimit -s`, 8 MiB by default), so this fits.
 */
const STACK_KIB = 3900

export function forkReader(limits: Pick<ReaderLimits, 'memoryMb'>): ChildProcess {
  const { NODE_OPTIONS: _, ...env } = process.env
  return fork(CHILD, [], {
    execArgv: [`--max-old-space-size=${limits.memoryMb}`, `--stack-size=${STACK_KIB}`],
    env,
    serialization: 'advanced', // structured clone: the document's bytes cross as bytes
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'], // stderr is read for V8's out-of-memory report only
  })
}

const OUT_OF_MEMORY = /Reached heap limit|heap out of memory/

/**
 * Whether a reader said on stderr that V8 ran out of heap (its report goes on with the native
 * stack, so the line is looked for as it passes, across chunk boundaries). Nothing else of
 * stderr is kept or logged: a parser's message may quote the document.
 */
export function watchOutOfMemory(child: ChildProcess): () => boolean {
  let said = false
  let carry = ''
  child.stderr?.setEncoding('utf8')
  child.stderr?.on('data', (s: string) => {
    if (said) return
    const seen = carry + s
    said = OUT_OF_MEMORY.test(seen)
    carry = seen.slice(-64)
  })
  return () => said
}

/** Why a reader that was not asked to end did: out of heap (`memory_mb`), or the document could not be read. */
export function endedBecause(outOfMemory: boolean, limits: Pick<ReaderLimits, 'memoryMb'>): Error {
  if (outOfMemory) {
    const mb = limits.memoryMb
    return overLimit('memoryMb', mb, `reading the document needed more than ${mb} MiB of memory`)
  }
  return errorOf({ status: 422, message: 'the document could not be read' })
}
