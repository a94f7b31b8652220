/**
 * `sluice ingest <folder> --project p --collection c [...]`: the kb bulk loader (bin/kb/), run
 * as `sluice-kb load` runs it. Only the shared flags are translated here: --url falls back to
 * SLUICE_URL and --admin-key is given to the loader as the SLUICE_ADMIN_KEY it reads.
 */
import { runKb } from '../kb/main.js'
import { gatewayUrl, type Io } from './common.js'

export const INGEST_USAGE = `usage: sluice ingest <folder> --project <p> --collection <c> [options]

Uploads every .txt .md .markdown .html .htm .pdf file under <folder> (recursively) to the
knowledge base; source_name is the path relative to <folder>. Re-running replaces documents.
Exit 0 every file loaded, 1 any failed, 2 bad usage. (The same loader as npm run kb -- load.)

options:
  --create             create the collection when it does not exist
  --concurrency <n>    uploads in flight, 1 to 64 (default 4)
  --tags <a,b>         tags given to every document
  --dry-run            list what would be loaded; send nothing
  --url <url>          the gateway (default $SLUICE_URL or http://127.0.0.1:8080)
  --admin-key <key>    the admin key (default $SLUICE_ADMIN_KEY)
  -h, --help           this text
`

/** Takes `--name value` / `--name=value` out of args; the loader's own parser does the rest. */
function take(args: string[], name: string): { value: string | undefined; rest: string[] } {
  const rest: string[] = []
  let value: string | undefined
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (a === '--') {
      rest.push(...args.slice(i))
      break
    }
    if (a === `--${name}` && i + 1 < args.length) value = args[++i]
    else if (a.startsWith(`--${name}=`)) value = a.slice(name.length + 3)
    else rest.push(a)
  }
  return { value, rest }
}

export async function ingestCommand(args: string[], io: Io): Promise<number> {
  const url = take(args, 'url')
  const key = take(url.rest, 'admin-key')
  const env = { ...io.env, ...(key.value === undefined ? {} : { SLUICE_ADMIN_KEY: key.value }) }
  return runKb(['load', ...key.rest, '--url', gatewayUrl(url.value, io.env)], env, 'sluice ingest', INGEST_USAGE)
}
