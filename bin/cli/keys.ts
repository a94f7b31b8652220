/** `sluice keys …`: the admin API's keys (POST/GET/PATCH/DELETE /admin/keys). */
import { adminClient, FailedError, parse, positiveNumber, table, UsageError, type Io } from './common.js'

export const KEYS_USAGE = `usage: sluice keys <action> [options]

actions:
  create --group <g> [--id <id>] [--budget <n> [--term day|week|month]] [--tpm <n>]
         [--expires <time>] [--models <a,b>] [--rpm <n>]
                       make a key; its secret is printed once, never again
  list                 a table of keys: id, group, enabled, budget, expiry, models, rpm, source
  set <id> [--expires <time>|none] [--models <a,b>|none] [--rpm <n>|none]
                       change a key's expiry, own models or requests per minute (none clears)
  enable <id>          switch a key on
  disable <id>         switch a key off (its requests get 403)
  rotate <id>          a new secret, printed once; the old one stops at once
  delete <id> --yes    delete a key (--yes is required: the id is never reused)

options:
  --expires <time>     when the key stops working: ISO 8601 with its zone (2027-01-31T00:00:00Z) or epoch ms
  --models <a,b>       catalog ids and families the key may use, within its group's
  --rpm <n>            requests per minute; past it 429 with Retry-After
  --url <url>          the gateway (default $SLUICE_URL or http://127.0.0.1:8080)
  --admin-key <key>    the admin key (default $SLUICE_ADMIN_KEY)
  --json               print the API's JSON instead of text
  -h, --help           this text
`

interface Key {
  id: string
  group: string
  enabled: boolean
  budget: { amount: number; term: string } | null
  expires_at: string | null
  expired: boolean
  models: string[] | null
  requests_per_minute: number | null
  source: string
}
interface Secret {
  key: Key
  secret: string
}

const options = {
  group: { type: 'string' },
  id: { type: 'string' },
  budget: { type: 'string' },
  term: { type: 'string' },
  tpm: { type: 'string' },
  expires: { type: 'string' },
  models: { type: 'string' },
  rpm: { type: 'string' },
  yes: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
} as const

export async function keysCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, options)
  if (values.help) {
    io.out(KEYS_USAGE)
    return 0
  }
  const [action, id, ...extra] = positionals
  if (action === undefined)
    throw new UsageError('keys needs an action: create, list, set, enable, disable, rotate, delete')
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`)
  const needsId = ['set', 'enable', 'disable', 'rotate', 'delete'].includes(action)
  if (!needsId && !['create', 'list'].includes(action))
    throw new UsageError(
      `unknown keys action ${JSON.stringify(action)}: expected create, list, set, enable, disable, rotate or delete`,
    )
  if (needsId && id === undefined) throw new UsageError(`keys ${action} needs a key <id>`)
  if (!needsId && id !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(id)}`)
  if (action === 'delete' && !values.yes)
    throw new UsageError('keys delete needs --yes (a deleted key cannot come back)')
  const body = action === 'create' ? createBody(values) : action === 'set' ? setBody(values) : undefined
  const api = adminClient(values, io.env)
  const path = `/keys/${encodeURIComponent(id ?? '')}`
  const print = (value: unknown, text: string): void =>
    io.out(values.json ? `${JSON.stringify(value, null, 2)}\n` : text)

  switch (action) {
    case 'create': {
      const made = (await api.call('POST', '/keys', body)) as Secret
      print(
        made,
        `created key ${made.key.id} in group ${made.key.group}\nsecret: ${made.secret}\n(shown once: store it now)\n`,
      )
      return 0
    }
    case 'list': {
      const list = (await api.call('GET', '/keys')) as { data: Key[] }
      print(
        list,
        table(
          ['id', 'group', 'enabled', 'budget', 'expires', 'models', 'rpm', 'source'],
          list.data.map((k) => [
            k.id,
            k.group,
            k.enabled,
            k.budget ? `${k.budget.amount}/${k.budget.term}` : null,
            k.expires_at && (k.expired ? `expired:${k.expires_at}` : k.expires_at),
            k.models?.join(','),
            k.requests_per_minute,
            k.source,
          ]),
        ),
      )
      return 0
    }
    case 'set': {
      const key = (await api.call('PATCH', path, body)) as Key
      print(
        key,
        `key ${key.id}: expires ${key.expires_at ?? 'never'}; models ${key.models?.join(', ') ?? "the group's"}; ` +
          `${key.requests_per_minute ?? 'no limit of'} requests per minute\n`,
      )
      return 0
    }
    case 'enable':
    case 'disable': {
      const key = (await api.call('PATCH', path, { enabled: action === 'enable' })) as Key
      print(key, `key ${key.id} ${key.enabled ? 'enabled' : 'disabled'}\n`)
      return 0
    }
    case 'rotate': {
      const rotated = (await api.call('POST', `${path}/rotate`)) as Secret
      print(
        rotated,
        `rotated key ${rotated.key.id}; the old secret no longer works\nsecret: ${rotated.secret}\n(shown once: store it now)\n`,
      )
      return 0
    }
    case 'delete': {
      const gone = await api.call('DELETE', path)
      print(gone, `deleted key ${id}\n`)
      return 0
    }
  }
  throw new FailedError(`unhandled action ${action}`)
}

function createBody(
  values: {
    group?: string
    id?: string
    budget?: string
    term?: string
    tpm?: string
  } & LimitFlags,
): Record<string, unknown> {
  if (!values.group) throw new UsageError('keys create needs --group <g>')
  const body: Record<string, unknown> = { group: values.group }
  if (values.id !== undefined) body.id = values.id
  const amount = positiveNumber(values.budget, '--budget', false)
  if (values.term !== undefined && amount === undefined) throw new UsageError('--term goes with --budget')
  if (values.term !== undefined && !['day', 'week', 'month'].includes(values.term))
    throw new UsageError(`--term is day, week or month, not ${JSON.stringify(values.term)}`)
  if (amount !== undefined) body.budget = { amount, term: values.term ?? 'month' }
  const tpm = positiveNumber(values.tpm, '--tpm', true)
  if (tpm !== undefined) body.tokens_per_minute = tpm
  return { ...body, ...limits(values, false) }
}

/** The body of `keys set`: at least one of the three, `none` clearing it. */
function setBody(values: LimitFlags): Record<string, unknown> {
  const body = limits(values, true)
  if (Object.keys(body).length === 0) throw new UsageError('keys set needs --expires, --models or --rpm')
  return body
}

interface LimitFlags {
  expires?: string
  models?: string
  rpm?: string
}

/** --expires, --models, --rpm as the admin API takes them (the gateway checks the values and names what is wrong). */
function limits(values: LimitFlags, clearable: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  const cleared = (raw: string | undefined) => clearable && raw === 'none'
  if (values.expires !== undefined)
    body.expires_at = cleared(values.expires)
      ? null
      : /^\d+$/.test(values.expires)
        ? Number(values.expires)
        : values.expires
  if (values.models !== undefined) {
    const names = values.models
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean)
    if (!cleared(values.models) && names.length === 0) throw new UsageError('--models names at least one model')
    body.models = cleared(values.models) ? null : names
  }
  if (values.rpm !== undefined)
    body.requests_per_minute = cleared(values.rpm) ? null : positiveNumber(values.rpm, '--rpm', true)
  return body
}
