/**
 * The bulk load behind `npm run kb -- load` (bin/sluice-kb.ts) and `sluice ingest`
 * (bin/cli/ingest.ts): parse, walk, load, summarise. Returns the exit code: 0 every file
 * loaded, 1 any failed (or the run could not start), 2 bad usage.
 */
import fs from 'node:fs'
import path from 'node:path'
import { parseCommand, USAGE, UsageError, type LoadOptions } from './args.js'
import { loadFolder, LoadError } from './load.js'
import { createProgress } from './progress.js'
import { walkFolder, type Walk } from './walk.js'

const out = process.stdout
const say = (line: string): void => void out.write(`${line}\n`)

export async function runKb(
  argv: string[],
  env: NodeJS.ProcessEnv,
  name = 'sluice-kb',
  usage = USAGE,
): Promise<number> {
  let options: LoadOptions
  try {
    const command = parseCommand(argv, env)
    if (command.kind === 'help') {
      out.write(usage)
      return 0
    }
    options = command.options
    if (!fs.statSync(options.folder, { throwIfNoEntry: false })?.isDirectory())
      throw new UsageError(`${options.folder} is not a folder`)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    process.stderr.write(`${name}: ${err.message}\n\n${usage}`)
    return 2
  }
  const walk = await walkFolder(path.resolve(options.folder))
  if (options.dryRun) return dryRun(walk)
  let report
  try {
    report = await loadFolder(options, walk, createProgress(out, out.isTTY === true), say)
  } catch (err) {
    if (!(err instanceof LoadError)) throw err
    process.stderr.write(`${name}: ${err.message}\n`)
    return 1
  }
  const count = (status: string): number => report.outcomes.filter((o) => o.status === status).length
  const failed = report.outcomes
    .filter((o) => o.status === 'failed')
    .sort((a, b) => (a.sourceName < b.sourceName ? -1 : 1))
  const chunks = report.outcomes.reduce((n, o) => n + o.chunks, 0)
  for (const s of walk.skipped) say(`skipped ${s.sourceName}: ${s.reason}`)
  for (const f of failed) say(`failed ${f.sourceName}: ${f.reason}`)
  say(
    `summary: ${count('loaded')} loaded, ${count('replaced')} replaced, ${walk.skipped.length} skipped, ${failed.length} failed; ${chunks} chunks in ${report.seconds.toFixed(1)} s`,
  )
  return failed.length > 0 ? 1 : 0
}

function dryRun(walk: Walk): number {
  for (const f of walk.files) say(`would load ${f.sourceName} (${f.bytes} bytes)`)
  for (const s of walk.skipped) say(`skipped ${s.sourceName}: ${s.reason}`)
  say(`dry run: ${walk.files.length} to load, ${walk.skipped.length} skipped; nothing sent`)
  return 0
}
