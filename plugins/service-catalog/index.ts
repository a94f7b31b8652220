/**
 * service-catalog: the SOAP service catalog (seven operations), behind `soap-codec`.
 *
 * Reads the call the codec put in `ex.state.soap`, resolves the operation in its own table,
 * binds the arguments by local name, answers from config/catalog.yaml and its catalog source
 * (static lists or a live REST catalog), and puts the values with the table in
 * `ex.state.soapResult` for the codec to render (it sets no reply itself). For `GET ?wsdl` it
 * hands over the table alone, which the codec turns into the WSDL.
 */
import { GatewayError, definePlugin, type Exchange, type Kernel } from '../../kernel/contract/index.js'
import { presentedToken } from '../../protocols/credentials/presented-token.js'
import { checkCatalogFile, restServicesUrl, type CatalogFile } from './catalog-file.js'
import {
  bindArguments,
  catalogService,
  resolveOperation,
  runOperation,
  type CatalogAnswers,
  type CatalogSource,
} from './operations.js'
import { createRestSource } from './rest-source.js'
import { configSchema } from './schema.js'
import { createStaticSource } from './static-source.js'

function createSource(file: CatalogFile, kernel: Kernel): CatalogSource {
  if (file.source === 'rest') {
    const rest = file.rest
    return createRestSource({
      url: rest.url,
      token: rest.token,
      ttlMs: rest.ttl_seconds * 1000,
      staleMs: rest.stale_seconds * 1000,
      timeoutMs: rest.timeout_ms,
      maxBytes: rest.max_bytes,
      servicesUrl: file.services_url !== '' ? file.services_url : (restServicesUrl(rest.url) ?? ''),
      types: rest.types,
      log: kernel.log.child({ plugin: 'service-catalog' }),
      now: () => kernel.now(),
    })
  }
  return createStaticSource(file.static.folders, file.static.services, file.services_url)
}

function checkAccess(ex: Exchange, kernel: Kernel): void {
  if (ex.principal !== undefined) return // an earlier auth step identified the caller
  // `?token=`: the way SOAP clients of mapping servers pass it; or a Bearer token.
  const token = presentedToken(ex, 'token')
  if (token === undefined) {
    throw new GatewayError(401, 'This catalog requires a token: pass ?token=<key> or Authorization: Bearer <key>.', {
      type: 'Unauthorized',
    })
  }
  const key = kernel.keys.lookup(token)
  const expired = key?.expiresAt !== undefined && kernel.now() >= key.expiresAt
  if (key === undefined || !key.enabled || expired)
    throw new GatewayError(401, 'Invalid token.', { type: 'Unauthorized' })
}

export default definePlugin({
  name: 'service-catalog',
  config: configSchema,
  requires: ['soap'],
  provides: ['soapResult'],
  setup(config, kernel) {
    const file = checkCatalogFile(config.file, kernel.config.file(config.file))
    const service = catalogService(file.namespace, file.public_url === '' ? undefined : file.public_url)
    const answers: CatalogAnswers = {
      messageVersion: file.message_version,
      messageFormats: file.message_formats,
      tokensRequired: file.tokens.required,
      tokenServiceUrl: file.tokens.service_url,
    }
    const requireToken = file.access.require_token
    const source = createSource(file, kernel)

    return {
      async request(ex, next) {
        const soap = ex.state.soap
        if (soap === undefined) throw new Error('service-catalog: no SOAP request in ex.state.soap')
        if (requireToken) checkAccess(ex, kernel)
        if (soap.kind === 'describe') {
          ex.state.soapResult = { kind: 'description', service }
        } else {
          const op = resolveOperation(soap.call, service.namespace)
          const args = bindArguments(op, soap.call)
          const values = await runOperation(op, args, answers, source, ex.signal)
          ex.state.soapResult = { kind: 'response', service, operation: op.name, values }
        }
        // The catalog fills its slot and leaves the reply to the codec; steps after it (none
        // in the shipped pipeline) still run.
        await next()
      },
      close() {
        return source.close()
      },
    }
  },
})
