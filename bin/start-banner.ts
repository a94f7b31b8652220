/**
 * What `npm start` prints once it listens, in plain lines before any log line: where things
 * are, the secrets made at this first start (shown only now; only their hashes are kept), and
 * commands ready to copy with those values in them. A later start names the variables instead.
 */
import type { Announcement } from '../kernel/services/keys/demo-secret.js'

export interface BannerInput {
  readonly url: string
  /** Secrets made at this start (empty on a later start). */
  readonly made: readonly Announcement[]
  readonly env: NodeJS.ProcessEnv
}

const DEMO_KEY = 'SLUICE_DEMO_KEY'
const ADMIN_KEY = 'SLUICE_ADMIN_KEY'

export function startBanner({ url, made, env }: BannerInput): string {
  const secretOf = (envVar: string) => made.find((a) => a.envVar === envVar)?.secret
  // A value made now is printed in full; otherwise the variable, when the shell has it.
  const valueOf = (envVar: string) => secretOf(envVar) ?? (env[envVar] ? `$${envVar}` : undefined)
  const demo = valueOf(DEMO_KEY)
  const admin = valueOf(ADMIN_KEY)
  const lines = [
    `Sluice is serving on ${url}`,
    `  OpenAI-compatible API  ${url}/v1`,
    `  Anthropic Messages     ${url}/v1/messages`,
    `  Query service          ${url}/query/v1/query`,
    `  Portal                 ${url}/portal   (sign in with the admin key)`,
    `  API reference          ${url}/openapi`,
  ]
  if (made.length > 0) {
    const width = Math.max(...made.map((a) => a.label.length))
    lines.push('', 'Made at this first start and shown only now (only their hashes are kept, in the data folder):')
    for (const a of made) lines.push(`  ${a.label.padEnd(width)}  ${a.secret}   (${a.envVar} chooses your own)`)
  }
  lines.push('', 'Try:')
  if (demo) {
    lines.push(`  curl -H "Authorization: Bearer ${demo}" ${url}/v1/models`)
    lines.push(
      `  curl ${url}/v1/chat/completions -H "Authorization: Bearer ${demo}" -H 'content-type: application/json' \\`,
      `    -d '{"model":"sim-chat","messages":[{"role":"user","content":"Hello"}]}'`,
    )
  } else
    lines.push(
      `  the demo API key printed at the first start, or set ${DEMO_KEY} before npm start; then`,
      `  curl -H "Authorization: Bearer $${DEMO_KEY}" ${url}/v1/models`,
    )
  if (admin) lines.push(`  curl -H "Authorization: Bearer ${admin}" ${url}/admin/keys`)
  else lines.push(`  the portal and /admin take the admin key printed at the first start, or set ${ADMIN_KEY}`)
  return `${lines.join('\n')}\n\n`
}
