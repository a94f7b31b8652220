/**
 * `sluice config check`: the boot's own validation, without the boot. It runs the functions
 * the gateway runs — loadDeployment (server/models/keys.yaml, their schemas and cross-checks)
 * and loadPipelines (every file server.yaml lists: schema, plugins, options, requires, metering,
 * body schemas, duplicate ids and paths) — so the errors are the boot's, word for word.
 */
import path from 'node:path'
import { loadDeployment } from '../../kernel/run/config.js'
import type { Kernel } from '../../kernel/contract/kernel.js'
import { loadPipelines } from '../../kernel/run/loader.js'
import { PluginStates } from '../../kernel/run/plugin-states.js'
import { describeCause } from '../../kernel/contract/log.js'
import { defaultConfigDir, defaultPipelinesDir } from '../../kernel/contract/paths.js'
import type { AnyPlugin } from '../../kernel/contract/plugin.js'
import { PluginRegistry } from '../../kernel/run/registry.js'
import { builtinPlugins } from '../../plugins/registry.js'
import { bodySchemas } from '../../schemas/bodies.js'
import { parse, UsageError, type Io } from './common.js'

export const CONFIG_USAGE = `usage: sluice config check [--config <dir>] [--pipelines <dir>]

Validates the deployment (server.yaml, models.yaml, keys.yaml) and every pipeline server.yaml
lists, with the gateway's own checks and error messages, without starting a server or
opening any store. Exit 0 when valid; 1 with the error (file, route, step) when not.

options:
  --config <dir>       the config folder (default $SLUICE_CONFIG or the shipped config/)
  --pipelines <dir>    the pipelines folder (default $SLUICE_PIPELINES or the shipped pipelines/)
  -h, --help           this text
`

export async function configCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { config: { type: 'string' }, pipelines: { type: 'string' } })
  if (values.help) {
    io.out(CONFIG_USAGE)
    return 0
  }
  const [action, ...extra] = positionals
  if (action !== 'check')
    throw new UsageError(
      action === undefined
        ? 'config needs an action: check'
        : `unknown config action ${JSON.stringify(action)}: expected check`,
    )
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`)
  // The same defaults as startGateway (kernel/gateway.ts).
  const configDir = path.resolve(values.config ?? (io.env.SLUICE_CONFIG || defaultConfigDir))
  const pipelinesDir = path.resolve(values.pipelines ?? (io.env.SLUICE_PIPELINES || defaultPipelinesDir))
  try {
    const deployment = loadDeployment({
      configDir,
      pipelinesDir,
      dataDir: path.resolve(io.env.SLUICE_DATA || './data'),
      env: io.env,
    })
    // Every check of loadPipelines runs before any plugin's open and setup; those are what open
    // stores, pools and files, so here each plugin has no open and a no-op setup, and nothing is
    // opened. The kernel is therefore never used (only open, setup and a failed setup's close reach it).
    const registry = new PluginRegistry(
      (builtinPlugins as AnyPlugin[]).map((p) => ({ ...p, open: undefined, setup: () => ({}) })),
    )
    const loaded = await loadPipelines({
      pipelinesDir,
      files: deployment.server.pipelines,
      registry,
      bodySchemas,
      kernel: {} as unknown as Kernel,
      states: new PluginStates(),
    })
    io.out(
      `config ok: ${configDir} and ${deployment.server.pipelines.length} pipeline files (${loaded.routes.size} routes) in ${pipelinesDir}\n`,
    )
    return 0
  } catch (err) {
    // The boot's words (bin/sluice-server.ts prints describeCause too).
    process.stderr.write(`sluice: config check failed: ${describeCause(err)}\n`)
    return 1
  }
}
