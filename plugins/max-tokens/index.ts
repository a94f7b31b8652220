/**
 * max-tokens: caps the reply length a request may ask for on a route. The example plugin of
 * docs/plugin-author-guide.md: small, but it shows options, an exchange slot, a response
 * header and an error.
 */
import { GatewayError, definePlugin } from '../../kernel/contract/index.js'
import { configSchema } from './schema.js'

declare module '../../kernel/contract/index.js' {
  interface ExchangeState {
    maxTokens?: { asked?: number; granted: number }
  }
}

export default definePlugin({
  name: 'max-tokens',
  config: configSchema,
  provides: ['maxTokens'],
  setup(config) {
    return {
      async request(ex, next) {
        const body = ex.body as { max_tokens?: number | null; max_completion_tokens?: number | null }
        const asked = body.max_completion_tokens ?? body.max_tokens ?? undefined
        if (asked !== undefined && asked > config.limit && config.mode === 'refuse')
          throw new GatewayError(400, `max_tokens ${asked} is over this route's limit of ${config.limit}`, {
            code: 'invalid_request',
          })
        const granted = Math.min(asked ?? config.limit, config.limit)
        if (body.max_completion_tokens != null) body.max_completion_tokens = granted
        else body.max_tokens = granted
        ex.state.maxTokens = { asked, granted }
        if (asked !== granted) ex.headers.set(`${ex.headerPrefix}max-tokens`, String(granted))
        await next()
      },
    }
  },
})
