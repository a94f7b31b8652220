/**
 * `npm start`: serves the gateway on the embedded defaults (or what SLUICE_CONFIG names). Log
 * lines (JSON, on stderr) are held until the start banner is printed, so a newcomer reads where
 * everything is, and the secrets made at first start, before any of them.
 */
import { startGateway } from './gateway.js'
import { createLogger, describeCause } from '../kernel/contract/log.js'
import { describeAnnouncement, type Announcement } from '../kernel/services/keys/demo-secret.js'
import { seedSampleCollection } from '../domains/query/sample-collection.js'
import { startBanner } from './start-banner.js'

let held: string[] | undefined = []
const log = createLogger({ sink: { write: (line) => (held ? held.push(line) : process.stderr.write(line)) } })
const release = () => {
  const lines = held ?? []
  held = undefined
  for (const line of lines) process.stderr.write(line)
}
const made: Announcement[] = []
let started = false
// A secret made after the banner (a demo key added to keys.yaml, then a reload) is printed at once.
const announce = (a: Announcement) => (started ? process.stdout.write(`${describeAnnouncement(a)}\n`) : made.push(a))

try {
  const gateway = await startGateway({ signals: true, log, announce })
  started = true
  process.stdout.write(startBanner({ url: gateway.url, made, env: process.env }))
  release()
  // In the background, once listening: the first start ingests the sample collection (server.yaml
  // query.sample_collection); it never fails the start, and is skipped when the collection exists.
  void seedSampleCollection(gateway.generation())
} catch (err) {
  release()
  process.stderr.write(`sluice: cannot start: ${describeCause(err)}\n`)
  process.exit(1)
}
