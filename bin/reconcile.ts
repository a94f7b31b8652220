/**
 * `npm run reconcile [-- --lag-ms <ms>]`: one reconciliation pass of the term budgets with the
 * usage records (plugins/budget/ledger/reconcile.ts), from the same config as `npm start`
 * (SLUICE_CONFIG, SLUICE_REDIS_URL, SLUICE_POSTGRES_URL). Safe beside running gateways. The lag
 * defaults to the gateway's own; a shorter one is right only when no request is in flight
 * (after an incident, with traffic stopped), else requests still running count as lost.
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import { loadDeployment } from '../kernel/run/config.js'
import { defaultConfigDir, defaultPipelinesDir } from '../kernel/contract/paths.js'
import { describeCause } from '../kernel/contract/log.js'
import { storeSettings } from './open-services.js'
import { reconcileLag, reconcileTerms } from '../plugins/budget/ledger/reconcile.js'

const { values } = parseArgs({ options: { 'lag-ms': { type: 'string' } } })
const env = process.env
try {
  const deployment = loadDeployment({
    configDir: path.resolve(env.SLUICE_CONFIG ?? defaultConfigDir),
    pipelinesDir: path.resolve(env.SLUICE_PIPELINES ?? defaultPipelinesDir),
    dataDir: path.resolve(env.SLUICE_DATA ?? './data'),
  })
  const settings = storeSettings(deployment.server.stores ?? {}, env)
  if (!settings.redisUrl) {
    process.stdout.write(
      'nothing to reconcile: budgets live in the gateway process, which starts them from the records\n',
    )
    process.exit(0)
  }
  const lagMs =
    values['lag-ms'] !== undefined
      ? Number(values['lag-ms'])
      : reconcileLag(deployment.server.limits.request_timeout_ms, settings.flushMs)
  if (!Number.isFinite(lagMs) || lagMs < 0) throw new Error('--lag-ms takes a number of milliseconds')
  // Only the records table and the ledger: no journal (a running gateway owns it), no queue.
  const store = settings.postgresUrl
    ? await (await import('../kernel/services/stores/postgres-store.js')).openPostgresStore({
        url: settings.postgresUrl,
        schema: settings.postgresSchema,
      })
    : (await import('../kernel/services/stores/sqlite-store.js')).openSqliteStore(deployment.dataDir)
  const { Redis } = await import('ioredis')
  const { RedisLedger } = await import('../plugins/budget/ledger/redis-ledger.js')
  const { RedisTurn } = await import('../kernel/services/redis/redis-turn.js')
  const redis = new Redis(settings.redisUrl, { maxRetriesPerRequest: 2, connectTimeout: 5000 })
  try {
    const ledger = new RedisLedger(redis, settings.redisPrefix, { heartbeatMs: 0, turn: new RedisTurn(redis) })
    const until = Date.now() - lagMs
    const report = (await reconcileTerms(ledger, store.records, until))!
    process.stdout.write(
      `reconciled ${report.counters} term counters for requests started before ${new Date(until).toISOString()}: ${report.adjusted.length} changed\n`,
    )
    for (const a of report.adjusted) process.stdout.write(`  ${a.counter}: ${a.delta > 0 ? '+' : ''}${a.delta}\n`)
  } finally {
    redis.disconnect()
    await store.close()
  }
} catch (err) {
  process.stderr.write(`sluice reconcile: ${describeCause(err)}\n`)
  process.exit(1)
}
