/**
 * openapi: OpenAPI 3.1 documents of the loaded HTTP pipelines (protocols/openapi), built once
 * per generation at setup, and a rendered reference page. `view: all` serves every pipeline
 * merged, `view: pipeline` the one named by `:file` (`gateway.json`), `view: page` the HTML.
 */
import { GatewayError, definePlugin, reply } from '../../kernel/contract/index.js'
import { bodySchemas } from '../../schemas/bodies.js'
import { responseSchemas } from '../../schemas/responses.js'
import { buildOpenApi, type OpenApiPipeline } from '../../protocols/openapi/document.js'
import { referencePage } from '../../protocols/openapi/reference-page.js'
import { configSchema } from './schema.js'
import { httpPipelines } from './pipelines.js'
import { stepErrors } from './step-errors.js'

/** The steps that authenticate a caller by bearer token (they provide the principal). */
const AUTH_STEPS = new Set(['auth', 'admin-auth', 'query-auth'])
/** The portal's session check (its sign-in step is open: it takes the admin key in the body). */
const COOKIE_STEPS = new Set(['portal-auth', 'portal-auth:session', 'portal-auth:status', 'portal-auth:sign-out'])

function documentOf(pipelines: readonly OpenApiPipeline[], title: string) {
  return buildOpenApi({
    title,
    version: '1',
    pipelines,
    bodySchemas,
    responseSchemas,
    stepErrors,
    authSteps: AUTH_STEPS,
    cookieSteps: COOKIE_STEPS,
  })
}

export default definePlugin({
  name: 'openapi',
  config: configSchema,
  setup(config, kernel) {
    const pipelines = httpPipelines(kernel.config)
    const all = documentOf(pipelines, 'Sluice')
    const page = referencePage(all)
    const one = new Map(pipelines.map((p) => [p.name, documentOf([p], `Sluice: ${p.name}`)]))
    return {
      async request(ex) {
        if (config.view === 'page') {
          ex.reply = reply.text('text/html; charset=utf-8', page)
        } else if (config.view === 'all') {
          ex.reply = reply.json(all)
        } else {
          const file = ex.params.file ?? ''
          const doc = file.endsWith('.json') ? one.get(file.slice(0, -'.json'.length)) : undefined
          if (!doc)
            throw new GatewayError(404, `no HTTP pipeline "${file.replace(/\.json$/, '')}"; see /openapi.json`, {
              type: 'not_found_error',
            })
          ex.reply = reply.json(doc)
        }
      },
    }
  },
})
