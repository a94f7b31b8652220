#!/usr/bin/env node
/**
 * `sluice`: the operator's command line over a running gateway's admin API (keys, usage),
 * the boot's config validation without a boot, and the knowledge base bulk loader.
 * Exit codes (docs/operator-guide.md "The sluice CLI"): 0 ok, 1 the operation failed,
 * 2 usage error, 3 cannot reach the gateway — so a script can tell the three apart.
 */
import { EXIT, FailedError, UnreachableError, UsageError, type Io } from './cli/common.js'
import { configCommand, CONFIG_USAGE } from './cli/config-check.js'
import { ingestCommand, INGEST_USAGE } from './cli/ingest.js'
import { keysCommand, KEYS_USAGE } from './cli/keys.js'
import { usageCommand, USAGE_USAGE } from './cli/usage.js'
import { backupCommand, BACKUP_USAGE } from './cli/backup.js'

const USAGE = `usage: sluice <command> [options]

commands:
  keys create|list|enable|disable|rotate|delete   manage API keys (sluice keys --help)
  usage                 requests and tokens per key, model or group (sluice usage --help)
  config check          validate config/ and pipelines/ as the boot does, without starting
  ingest <folder>       bulk-load a folder into a knowledge collection
  backup <folder>       online backup of the SQLite data folder (sluice backup --help)

common options:
  --url <url>           the gateway (default $SLUICE_URL or http://127.0.0.1:8080)
  --admin-key <key>     the admin key (default $SLUICE_ADMIN_KEY)
  -h, --help            help, for the tool or for a command (sluice <command> --help)

exit codes:
  0  ok
  1  the operation failed (an HTTP error prints the API's message; config check: invalid)
  2  usage error (unknown command or flag, missing argument)
  3  cannot reach the gateway
`

const commands: Record<string, { run: (args: string[], io: Io) => Promise<number>; usage: string }> = {
  keys: { run: keysCommand, usage: KEYS_USAGE },
  usage: { run: usageCommand, usage: USAGE_USAGE },
  config: { run: configCommand, usage: CONFIG_USAGE },
  ingest: { run: ingestCommand, usage: INGEST_USAGE },
  backup: { run: backupCommand, usage: BACKUP_USAGE },
}

async function main(argv: string[]): Promise<number> {
  const io: Io = { out: (text) => void process.stdout.write(text), env: process.env }
  const [name, ...rest] = argv
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    process.stdout.write(USAGE)
    return name === undefined ? EXIT.usage : EXIT.ok
  }
  const command = commands[name]
  if (!command) {
    process.stderr.write(`sluice: unknown command ${JSON.stringify(name)}\n\n${USAGE}`)
    return EXIT.usage
  }
  try {
    return await command.run(rest, io)
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`sluice ${name}: ${err.message}\n\n${command.usage}`)
      return EXIT.usage
    }
    if (err instanceof UnreachableError) {
      process.stderr.write(`sluice: ${err.message}\n`)
      return EXIT.unreachable
    }
    if (err instanceof FailedError) {
      process.stderr.write(`sluice ${name}: ${err.message}\n`)
      return EXIT.failed
    }
    throw err
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    process.stderr.write(`sluice: ${(err as Error).stack ?? String(err)}\n`)
    process.exitCode = EXIT.failed
  },
)
