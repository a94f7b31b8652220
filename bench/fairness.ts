/**
 * Fairness benchmark: the fair queue under a flood. A model of small capacity behind the real
 * gateway, the simulator at a realistic latency; one tenant sends many concurrent requests
 * while another sends one request after another. Prints, for tenants in different groups and
 * for two keys of one group, Jain's fairness index of the tokens served while both had work,
 * and each tenant's waits (median and p90).
 *
 *   npx tsc -p tsconfig.json && node dist/bench/fairness.js [--flood 40] [--capacity 2] [--ttft 40] [--itl 4] [--max-tokens 8] [--anticipation 50] [--redis redis://127.0.0.1:6379]
 *   npm run bench -- fairness
 */
import { option } from './bench-setup.js'
import fs from 'node:fs'
import path from 'node:path'
import { startTestGateway } from '../test/support/gateway.js'
import { keysFile, modelsWith } from '../test/support/deployment-files.js'
import { runFairnessScenario, type FairnessResult, type Tenant } from '../test/support/fairness.js'
import type { StoresConfig } from '../bin/open-services.js'
import { Redis } from 'ioredis'

const flood = option('flood', 40)
const capacity = option('capacity', 2)
const ttft = option('ttft', 40)
const itl = option('itl', 4)
const maxTokens = option('max-tokens', 8)
const anticipation = option('anticipation', 50)
const rounds = option('rounds', 3)
// With --redis, the queue is the Redis-coordinated one that replicas share.
const redisAt = process.argv.indexOf('--redis')
const redisUrl = redisAt >= 0 ? process.argv[redisAt + 1] : undefined
const redisPrefix = `sluice-bench-${process.pid}:`

const tenant = (keyId: string): Tenant => ({ name: keyId, keyId, secret: `sk-bench-${keyId}` })
const a1 = tenant('a1')
const a2 = tenant('a2')
const b1 = tenant('b1')

const gw = await startTestGateway({
  server: redisUrl ? { stores: { redis_url: redisUrl, redis_prefix: redisPrefix } as StoresConfig } : {},
  simulatorLatency: { ttft_ms: ttft, itl_ms: itl },
  files: {
    'config/models.yaml': modelsWith({
      backends: { narrow: { url: 'embedded', capacity } },
      models: [
        {
          id: 'sim-narrow',
          model_type: 'chat',
          backend: 'narrow',
          served_name: 'sim-instruct-8b',
          reported_name: 'sim-narrow',
          context_window: 32768,
        },
      ],
    }),
    'config/keys.yaml': keysFile({ alpha: { weight: 1 }, beta: { weight: 1 } }, [
      { id: 'a1', group: 'alpha', secret: a1.secret },
      { id: 'a2', group: 'alpha', secret: a2.secret },
      { id: 'b1', group: 'beta', secret: b1.secret },
    ]),
  },
})
// The anticipation is a step option: write it into the copied pipelines.
const pipelines = path.join(gw.pipelinesDir, 'gateway.yaml')
fs.writeFileSync(
  pipelines,
  fs
    .readFileSync(pipelines, 'utf8')
    .replace(/- fair-queue\b.*$/gm, `- fair-queue: { anticipation_ms: ${anticipation} }`),
)
if (!(await gw.reload())) throw new Error('the bench pipelines did not load')

const line = (label: string, r: FairnessResult) =>
  `| ${label} | ${r.jain.toFixed(3)} | ${r.medianServiceMs} | ${r.flood.requests} | ${r.flood.medianWaitMs} / ${r.flood.p90WaitMs} | ${Math.round(r.flood.tokensWhileBothBusy)} | ${r.steady.requests} | ${r.steady.medianWaitMs} / ${r.steady.p90WaitMs} | ${Math.round(r.steady.tokensWhileBothBusy)} |`

console.log(
  `capacity ${capacity}, flood ${flood} concurrent, steady 1 at a time; simulator ttft ${ttft} ms, itl ${itl} ms, max_tokens ${maxTokens}; anticipation ${anticipation} ms; queue state: ${gw.generation().redis ? 'redis' : 'memory'}`,
)
console.log(
  '| scenario | Jain | service ms (median) | flood requests | flood wait ms (median / p90) | flood tokens | steady requests | steady wait ms (median / p90) | steady tokens |',
)
console.log('|---|---|---|---|---|---|---|---|---|')
for (let round = 1; round <= rounds; round++) {
  console.log(
    line(
      `groups, run ${round}`,
      await runFairnessScenario(gw, { model: 'sim-narrow', flood: a1, steady: b1, floodRequests: flood, maxTokens }),
    ),
  )
  console.log(
    line(
      `keys of a group, run ${round}`,
      await runFairnessScenario(gw, { model: 'sim-narrow', flood: a1, steady: a2, floodRequests: flood, maxTokens }),
    ),
  )
}
await gw.close()
if (redisUrl) {
  const redis = new Redis(redisUrl)
  const keys = await redis.keys(`${redisPrefix}*`)
  if (keys.length > 0) await redis.del(...keys)
  await redis.quit()
}
