/**
 * `npm run kb -- load <folder> --project <p> --collection <c> [...]`: bulk-loads a folder into
 * a knowledge base collection through the gateway's knowledge API (bin/kb/args.ts has the
 * usage). Exit codes: 0 every file loaded, 1 any failed (or the run could not start), 2 bad
 * usage, so a script or CI step can tell "fix the command" from "fix the files".
 */
import { runKb } from './kb/main.js'

runKb(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    process.stderr.write(`sluice-kb: ${(err as Error).stack ?? String(err)}\n`)
    process.exitCode = 1
  },
)
