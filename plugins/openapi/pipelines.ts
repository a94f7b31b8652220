/**
 * The HTTP routes of the loaded pipelines, read from the same files the loader read (the
 * kernel gives plugins no view of the route table, and its files are at their line cap).
 * Called at setup, so each generation (hot reload) describes its own files.
 */
import fs from 'node:fs'
import path from 'node:path'
import { load as loadYaml } from 'js-yaml'
import type { Deployment } from '../../kernel/contract/index.js'
import type { OpenApiPipeline, OpenApiRoute } from '../../protocols/openapi/document.js'

interface RawRoute {
  id?: string
  http?: string
  body?: string
  response?: string
  internal?: boolean
  steps?: unknown[]
}

interface RawPipeline {
  pipeline?: string
  prefix?: string
  errors?: string | { style?: string }
  routes?: RawRoute[]
}

/**
 * A step is `name` or `{ name: options }`; one whose options choose what it does (`action`, or
 * `view` for openapi) reads `name:action`.
 */
function stepName(step: unknown): string {
  if (typeof step === 'string') return step
  const [name, options] = Object.entries(step as object)[0] ?? ['', undefined]
  const o = options as { action?: unknown; view?: unknown } | null | undefined
  const action = o?.action ?? o?.view
  return typeof action === 'string' ? `${name}:${action}` : name
}

export function httpPipelines(config: Deployment): OpenApiPipeline[] {
  const out: OpenApiPipeline[] = []
  for (const file of config.server.pipelines) {
    const doc = loadYaml(fs.readFileSync(path.resolve(config.pipelinesDir, file), 'utf8')) as RawPipeline
    const routes: OpenApiRoute[] = (doc.routes ?? [])
      .filter((r) => r.http && !r.internal)
      .map((r) => ({
        id: r.id ?? '',
        http: r.http!,
        body: r.body,
        response: r.response,
        steps: (r.steps ?? []).map(stepName),
      }))
    if (routes.length === 0) continue
    const errors = typeof doc.errors === 'object' ? (doc.errors.style ?? 'openai') : (doc.errors ?? 'openai')
    out.push({
      name: doc.pipeline ?? path.basename(file, path.extname(file)),
      prefix: doc.prefix ?? '',
      errors,
      routes,
    })
  }
  return out
}
