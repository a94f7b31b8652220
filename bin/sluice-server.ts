/** `npm start`: serves the gateway on the embedded defaults (or what SLUICE_CONFIG names). */
import { startGateway } from './gateway.js'
import { describeCause } from '../kernel/contract/log.js'
import { seedSampleCollection } from '../domains/query/sample-collection.js'

try {
  const gateway = await startGateway({ signals: true })
  process.stdout.write(
    `Sluice is serving on ${gateway.url} (try: curl -H "Authorization: Bearer $SLUICE_DEMO_KEY" ${gateway.url}/v1/models)\n`,
  )
  // In the background, once listening: the first start ingests the sample collection (server.yaml
  // query.sample_collection); it never fails the start, and is skipped when the collection exists.
  void seedSampleCollection(gateway.generation())
} catch (err) {
  process.stderr.write(`sluice: cannot start: ${describeCause(err)}\n`)
  process.exit(1)
}
