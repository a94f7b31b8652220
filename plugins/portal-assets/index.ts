/**
 * portal-assets: serves the operator portal's built front end (HTML, scripts, styles) with
 * its content type and caching headers: the page is revalidated on every load (`no-cache`),
 * assets named by their content hash are immutable for a year. A strict Content-Security-Policy
 * keeps the page to its own scripts and its own origin. When the front end was not built, the
 * route answers 503 with the command to run, instead of stopping the boot. With `redirect`, a
 * route sends the browser there (`/` → the portal).
 */
import { GatewayError, definePlugin, reply } from '../../kernel/contract/index.js'
import { configSchema } from './schema.js'
import { readBuilt } from './files.js'

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

export default definePlugin({
  name: 'portal-assets',
  config: configSchema,
  setup(config) {
    const files = readBuilt()
    return {
      async request(ex) {
        if (config.redirect) {
          ex.headers.set('location', config.redirect)
          ex.reply = reply.text('text/plain; charset=utf-8', `The portal is at ${config.redirect}\n`, 302)
          return
        }
        if (files.size === 0) throw new GatewayError(503, 'the portal is not built: run `npm run build`')
        const name = config.file ?? ex.params.file ?? ''
        const file = files.get(name)
        if (!file) throw new GatewayError(404, `no portal file ${name}`, { type: 'not_found_error' })
        ex.headers.set('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
        ex.headers.set('x-content-type-options', 'nosniff')
        if (file.contentType.startsWith('text/html')) {
          ex.headers.set('content-security-policy', CSP)
          ex.headers.set('referrer-policy', 'no-referrer')
        }
        ex.reply = reply.bytes(file.contentType, file.data)
      },
    }
  },
})
