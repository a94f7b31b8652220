/**
 * Part of `npm run build`: tsc compiles only TypeScript, so the Lua scripts that the Redis ledger,
 * the fair queues and the per-turn batch load beside their code (`new URL('./lua/x.lua',
 * import.meta.url)`) are copied into dist/ at the same relative paths.
 */
import fs from 'node:fs'
import path from 'node:path'

for (const root of ['kernel', 'domains', 'plugins']) {
  for (const file of fs.readdirSync(root, { recursive: true })) {
    if (String(file).endsWith('.lua')) fs.cpSync(path.join(root, String(file)), path.join('dist', root, String(file)))
  }
}
