/**
 * One bulk load: check (or create) the collection, learn which documents exist already (so
 * the summary can tell new from replaced), then upload the folder's files with at most
 * `concurrency` in flight. A file that fails is reported and the rest go on: one bad PDF
 * must not cost the operator the other thousand files.
 */
import fs from 'node:fs/promises'
import type { LoadOptions } from './args.js'
import { KbClient } from './client.js'
import type { FileOutcome, Progress } from './progress.js'
import type { FoundFile, Walk } from './walk.js'

export interface LoadReport {
  outcomes: FileOutcome[]
  seconds: number
}

/** A problem that stops the whole run before any file is sent (exit 1, not 2: usage was fine). */
export class LoadError extends Error {}

export async function loadFolder(
  options: LoadOptions,
  walk: Walk,
  progress: Progress,
  note: (line: string) => void,
): Promise<LoadReport> {
  const client = new KbClient(options.url, options.adminKey!, options.project)
  const existing = await prepareCollection(client, options, note)
  const started = Date.now()
  const outcomes: FileOutcome[] = []
  progress.start(walk.files.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < walk.files.length) {
      const file = walk.files[next++]!
      const outcome = await loadOne(client, options, file, existing)
      outcomes.push(outcome)
      progress.file(outcome)
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.concurrency, walk.files.length) }, worker))
  progress.end()
  return { outcomes, seconds: (Date.now() - started) / 1000 }
}

async function prepareCollection(
  client: KbClient,
  options: LoadOptions,
  note: (line: string) => void,
): Promise<Set<string>> {
  let names: string[]
  try {
    names = await client.collectionNames()
  } catch (err) {
    throw new LoadError(`cannot list the collections of project ${options.project} at ${options.url}: ${reasonOf(err)}`)
  }
  if (!names.includes(options.collection)) {
    if (!options.create)
      throw new LoadError(
        `collection ${JSON.stringify(options.collection)} does not exist in project ${options.project} (pass --create to create it)`,
      )
    try {
      await client.createCollection(options.collection)
    } catch (err) {
      throw new LoadError(`cannot create collection ${JSON.stringify(options.collection)}: ${reasonOf(err)}`)
    }
    note(`created collection ${options.collection} in project ${options.project}`)
    return new Set()
  }
  try {
    return new Set((await client.documents(options.collection)).map((d) => d.source_name))
  } catch (err) {
    throw new LoadError(`cannot list the documents of ${options.collection}: ${reasonOf(err)}`)
  }
}

async function loadOne(
  client: KbClient,
  options: LoadOptions,
  file: FoundFile,
  existing: Set<string>,
): Promise<FileOutcome> {
  try {
    const bytes = await fs.readFile(file.absolutePath)
    const doc = await client.upload(options.collection, file.sourceName, bytes, options.tags)
    return {
      sourceName: file.sourceName,
      status: existing.has(file.sourceName) ? 'replaced' : 'loaded',
      chunks: doc.chunks,
    }
  } catch (err) {
    return { sourceName: file.sourceName, status: 'failed', chunks: 0, reason: reasonOf(err) }
  }
}

/** fetch says only "fetch failed"; the useful part (ECONNREFUSED …) is its cause. */
function reasonOf(err: unknown): string {
  const e = err as Error & { cause?: { message?: string; code?: string } }
  const cause = e.cause?.code ?? e.cause?.message
  return cause ? `${e.message} (${cause})` : e.message
}
