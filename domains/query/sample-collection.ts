/**
 * The sample collection of the embedded default: after the first start of `npm start`, a small
 * collection (`sample` of project `demo`) is ingested from the .md and .txt files of
 * config/sample/, so that a newcomer's first query with `enable_search` returns sources.
 *
 * It runs after the server is listening, in the background, and never fails the start: a
 * failure is a warning, and a half-made collection is removed so that the next start tries
 * again. Idempotent: an existing collection is left as it is (the operator may have changed
 * it). Embeddings go through the `embeddings` route under the project's own key, like every
 * model call of the Query service. Operators turn it off with
 * `query.sample_collection.enabled: false` in server.yaml.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describeCause, type Kernel } from '../../kernel/contract/index.js'
import { embedThroughRoute } from './knowledge/embed-route.js'
import { textContentType } from './knowledge/knowledge-base.js'

export type SampleOutcome = 'disabled' | 'exists' | 'ingested' | 'failed'

/** The sample's files: .md and .txt of the folder, in name order. */
function sampleFiles(folder: string): string[] {
  return fs
    .readdirSync(folder)
    .filter((f) => /\.(md|txt)$/i.test(f) && fs.statSync(path.join(folder, f)).isFile())
    .sort()
}

/**
 * Ingests the sample collection when configured and missing; resolves with what it did, never
 * rejects. Until it has, the readiness probe says so (503), so that a newcomer who waits for
 * `/readyz` finds the collection.
 */
export function seedSampleCollection(kernel: Kernel): Promise<SampleOutcome> {
  const seeding = seed(kernel)
  const query = kernel.domains.query
  query.sampleSeeding = seeding
  void seeding.finally(() => {
    if (query.sampleSeeding === seeding) query.sampleSeeding = undefined
  })
  return seeding
}

async function seed(kernel: Kernel): Promise<SampleOutcome> {
  const settings = kernel.config.server.query?.sample_collection
  if (!settings || settings.enabled === false) return 'disabled'
  const projectId = settings.project ?? 'demo'
  const name = settings.collection ?? 'sample'
  const where = { project: projectId, collection: name }
  let created = false
  try {
    const project = kernel.domains.query.projects.project(projectId)
    if (!project) throw new Error(`project ${projectId} does not exist`)
    const key = kernel.keys.key(project.keyId)
    if (!key) throw new Error(`key ${project.keyId} of project ${projectId} does not exist`)
    if ((await kernel.domains.query.knowledge.listCollections(projectId)).some((c) => c.name === name)) return 'exists'
    const folder = path.resolve(kernel.config.configDir, settings.folder ?? 'sample')
    const files = sampleFiles(folder)
    if (files.length === 0) throw new Error(`no .md or .txt files in ${folder}`)
    const embed = embedThroughRoute(
      (id, body, o) => kernel.call(id, body, o),
      kernel.domains.query.routes.embeddings,
      {
        keyId: key.id,
        group: key.group,
        legacy: key.legacy,
      },
      {},
      (model) => kernel.catalog.model(model)?.context_window,
    )
    await kernel.domains.query.knowledge.createCollection(projectId, name, undefined, embed)
    created = true
    for (const file of files) {
      const bytes = fs.readFileSync(path.join(folder, file))
      await kernel.domains.query.knowledge.ingest(
        projectId,
        name,
        { sourceName: file, tags: ['sample'] },
        { bytes, contentType: textContentType(file), fileName: file },
        embed,
      )
    }
    kernel.log.info('sample collection ingested', { ...where, documents: files.length })
    return 'ingested'
  } catch (err) {
    // Another replica made it at the same moment: that is the idempotent outcome, not a failure.
    if ((err as { status?: number }).status === 409 && !created) return 'exists'
    kernel.log.warn('the sample collection was not ingested; the gateway serves without it', {
      ...where,
      cause: describeCause(err),
    })
    if (created) await kernel.domains.query.knowledge.deleteCollection(projectId, name).catch(() => undefined)
    return 'failed'
  }
}
