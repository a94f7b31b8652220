/**
 * `${NAME}` in a backend of models.yaml: any string of a backend (its url, replicas, api_key,
 * header values …) may name environment variables, read when the config loads, so upstream keys
 * need not be written in the file. The deployment keeps the file as written (`${NAME}`): only
 * the catalog's backends, which the upstream call reads, hold the values, so nothing that shows
 * the config (the admin API, the portal, a log line, an error) can show a secret. A variable
 * that is not set, or empty, stops the load with its name, never a value.
 */
import { ConfigError } from '../../contract/errors.js'
import type { BackendConfig } from '../../../schemas/models.schema.js'

/** `$${` (a literal `${`), `${NAME}`, or a `${` that names nothing well (an error). */
const REF = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$\{/g

/** Whether a string names a variable (or escapes `${`): the fast test before any work. */
function refers(text: string): boolean {
  return text.includes('${')
}

function substitute(text: string, where: string, env: NodeJS.ProcessEnv): string {
  return text.replace(REF, (match, name: string | undefined) => {
    if (match === '$${') return '${'
    if (name === undefined)
      throw new ConfigError(
        `${where}: a \${ that is not \${NAME} (letters, digits and _; write $\${ for a literal \${)`,
      )
    const value = env[name]
    if (value === undefined || value === '')
      throw new ConfigError(`${where} names the environment variable ${name}, which is not set`)
    return value
  })
}

/** `value` with its variables read; `field` is where it sits in the backend (`api_key`, `headers.x-key`). */
function resolveValue(value: unknown, where: string, field: string, env: NodeJS.ProcessEnv): unknown {
  if (typeof value === 'string') return refers(value) ? substitute(value, `${where}: ${field}`, env) : value
  if (Array.isArray(value)) return value.map((v, i) => resolveValue(v, where, `${field}[${i}]`, env))
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, resolveValue(v, where, field ? `${field}.${k}` : k, env)]),
    )
  return value
}

/**
 * The backend with every `${NAME}` replaced by the variable's value. Throws a ConfigError
 * naming the file, the backend, the field and the variable when one is not set, or when a
 * replica's URL it makes is not an http(s) URL (the message never holds the value).
 */
export function resolveBackend(
  file: string,
  name: string,
  backend: BackendConfig,
  env: NodeJS.ProcessEnv,
): BackendConfig {
  const resolved = resolveValue(backend, `${file}: backend ${name}`, '', env) as BackendConfig
  for (const [i, url] of (resolved.replicas ?? []).entries()) {
    if (!/^https?:\/\//.test(url))
      throw new ConfigError(
        `${file}: backend ${name}: replicas[${i}] is not an http(s) URL once its variables are read`,
      )
  }
  return resolved
}

/** Checks at load that every variable the backends name is set (the values are not kept). */
export function checkBackendEnv(
  file: string,
  backends: Readonly<Record<string, BackendConfig>>,
  env: NodeJS.ProcessEnv,
): void {
  for (const [name, backend] of Object.entries(backends)) resolveBackend(file, name, backend, env)
}
