/**
 * The services a generation makes from its own config and drops when a reload retires it: the
 * model catalog, the key store (keys.yaml over the stored keys) and the backends' connection
 * pools. What outlives every reload is in kernel-services.ts.
 */
import type { Deployment } from '../contract/kernel.js'
import type { Logger } from '../contract/log.js'
import type { KernelServices } from './kernel-services.js'
import { createCatalog, type CatalogOptions } from './catalog/catalog.js'
import { createKeyStore, type LayeredKeyStore } from './keys/keys.js'
import { BackendPools } from './backends/pools.js'
import type { Announce } from './keys/demo-secret.js'

export interface GenerationServiceOptions {
  log: Logger
  env: NodeJS.ProcessEnv
  embeddedUrls?: CatalogOptions['embeddedUrls']
  now?: () => number
  announce?: Announce
  /** The process's shared services (made once, in gateway.ts, so they outlive the generation). */
  services: KernelServices
}

export function openGenerationServices(deployment: Deployment, options: GenerationServiceOptions) {
  // The catalog is made first, so that a catalog the config cannot make leaves nothing open;
  // it reads the groups through the key store made next.
  const catalog = createCatalog(deployment, {
    embeddedUrls: options.embeddedUrls,
    env: options.env,
    keys: { group: (id) => keys.group(id), key: (id) => keys.key(id) },
  })
  const keys: LayeredKeyStore = createKeyStore(deployment.keys, {
    dataDir: deployment.dataDir,
    env: options.env,
    log: options.log,
    announce: options.announce,
    stored: options.services.storedKeys,
    adminKeyHash: deployment.server.admin?.key_hash,
    generateAdminKey: deployment.server.admin?.generate_key,
    now: options.now,
    catalog,
  })
  const backends = new BackendPools(catalog, (id) => keys.group(id), options.services.metrics)
  return { catalog, keys, backends }
}
