/** The static catalog source: folders and services listed in config/catalog.yaml. */
import type { StaticServiceEntry } from './catalog-file.js'
import { folderOf } from './catalog-file.js'
import type { CatalogEntry, CatalogSnapshot, CatalogSource } from './operations.js'

/** `<base>/<Folder/Name>/<Type>`, or `…/<ParentType>/<Type>` for an extension. */
export function serviceUrl(servicesUrl: string, name: string, type: string, parentType: string): string {
  const base = servicesUrl.replace(/\/+$/, '')
  const path = name.split('/').map(encodeURIComponent).join('/')
  return parentType === '' ? `${base}/${path}/${type}` : `${base}/${path}/${parentType}/${type}`
}

export function staticEntry(entry: StaticServiceEntry, servicesUrl: string): CatalogEntry {
  const parentType = entry.parent_type ?? ''
  return {
    name: entry.name,
    type: entry.type,
    url:
      entry.url !== undefined && entry.url !== ''
        ? entry.url
        : serviceUrl(servicesUrl, entry.name, entry.type, parentType),
    parentType,
    capabilities: entry.capabilities ?? '',
    description: entry.description ?? '',
    folder: folderOf(entry.name),
  }
}

export function createStaticSource(
  folders: readonly string[],
  services: readonly StaticServiceEntry[],
  servicesUrl: string,
): CatalogSource {
  const snapshot: CatalogSnapshot = {
    folders: [...folders],
    services: services.map((s) => staticEntry(s, servicesUrl)),
  }
  const ready = Promise.resolve(snapshot)
  return {
    snapshot: () => ready,
    close() {},
  }
}
