/**
 * The command line of `sluice-kb`, parsed with node:util parseArgs (no framework: one
 * command, a handful of flags). Any mistake is a UsageError, which the entry point turns into
 * the usage text on stderr and exit code 2.
 */
import { parseArgs } from 'node:util'

export const USAGE = `usage: sluice-kb load <folder> --project <p> --collection <c> [options]

Uploads every .txt .md .markdown .html .htm .pdf file under <folder> (recursively) to the
knowledge base; source_name is the path relative to <folder>. Re-running replaces documents.

options:
  --url <url>          the gateway (default http://127.0.0.1:8080)
  --create             create the collection when it does not exist
  --concurrency <n>    uploads in flight, 1 to 64 (default 4)
  --tags <a,b>         tags given to every document
  --dry-run            list what would be loaded; send nothing
  -h, --help           this text

environment:
  SLUICE_ADMIN_KEY     the gateway's admin key (required unless --dry-run)
`

export class UsageError extends Error {}

export interface LoadOptions {
  folder: string
  project: string
  collection: string
  url: string
  create: boolean
  concurrency: number
  tags: string[]
  dryRun: boolean
  adminKey: string | undefined
}

export type Command = { kind: 'help' } | { kind: 'load'; options: LoadOptions }

// The server's own rule for project and collection names: refusing here saves a round trip.
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/

export function parseCommand(argv: string[], env: NodeJS.ProcessEnv): Command {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        project: { type: 'string' },
        collection: { type: 'string' },
        url: { type: 'string', default: 'http://127.0.0.1:8080' },
        create: { type: 'boolean', default: false },
        concurrency: { type: 'string', default: '4' },
        tags: { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    })
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
  const { values, positionals } = parsed
  if (values.help) return { kind: 'help' }
  const [command, folder, ...extra] = positionals
  if (command === undefined) throw new UsageError('a command is required: load')
  if (command !== 'load') throw new UsageError(`unknown command ${JSON.stringify(command)}: expected load`)
  if (folder === undefined) throw new UsageError('load needs a <folder>')
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`)
  const project = required(values.project, '--project')
  const collection = required(values.collection, '--collection')
  for (const [flag, name] of [
    ['--project', project],
    ['--collection', collection],
  ] as const) {
    if (!NAME.test(name))
      throw new UsageError(
        `${flag} ${JSON.stringify(name)} is invalid: 1 to 128 letters, digits, _ . -, starting with a letter or digit`,
      )
  }
  const concurrency = Number(values.concurrency)
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    throw new UsageError(`--concurrency takes an integer from 1 to 64, not ${JSON.stringify(values.concurrency)}`)
  let url: URL
  try {
    url = new URL(values.url)
  } catch {
    throw new UsageError(`--url ${JSON.stringify(values.url)} is not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--url must be http or https')
  const tags = (values.tags ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t.length > 0)
  const dryRun = values['dry-run']
  const adminKey = env.SLUICE_ADMIN_KEY || undefined
  if (!dryRun && !adminKey) throw new UsageError('SLUICE_ADMIN_KEY is not set: the knowledge API needs the admin key')
  return {
    kind: 'load',
    options: {
      folder,
      project,
      collection,
      url: url.href.replace(/\/+$/, ''),
      create: values.create,
      concurrency,
      tags,
      dryRun,
      adminKey,
    },
  }
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`)
  return value
}
