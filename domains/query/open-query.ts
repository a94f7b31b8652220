/** Opens the Query service's stores: projects and tokens, history, chat uploads. */
import type { QueryServices, QueryStoreOptions } from './query-services.js'
import { openProjects } from './projects-store.js'
import { openHistory } from './history-store.js'
import { openUploads } from './upload-store.js'

export async function openQueryServices(
  options: QueryStoreOptions,
): Promise<QueryServices & { close(): Promise<void> }> {
  const projects = await openProjects(options)
  const history = await openHistory(options)
  const uploads = await openUploads(options)
  return {
    projects,
    history,
    uploads,
    async close() {
      await Promise.allSettled([projects.close(), history.close(), uploads.close()])
    },
  }
}
