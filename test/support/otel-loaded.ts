/**
 * A gateway process that serves one chat and says which OpenTelemetry packages it loaded: the
 * test of "no SDK unless an OTLP endpoint is set" runs it with and without the variables. The
 * packages are CommonJS, so whatever was loaded, however, is in require's cache.
 *   node dist/test/support/otel-loaded.js     (prints `LOADED <package> …` then exits)
 */
import { createRequire } from 'node:module'
import { startTestGateway } from './gateway.js'

const gateway = await startTestGateway({ log: undefined })
const reply = await gateway
  .openai()
  .chat.completions.create({ model: 'sim-chat-instruct', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 })
const loaded = new Set<string>()
for (const file of Object.keys(createRequire(import.meta.url).cache)) {
  const m = /node_modules\/(@opentelemetry\/[^/]+)\//.exec(file)
  if (m) loaded.add(m[1]!)
}
await gateway.close()
process.stdout.write(`ANSWERED ${reply.choices.length}\nLOADED ${[...loaded].sort().join(' ')}\n`)
