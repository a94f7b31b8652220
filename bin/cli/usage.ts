/** `sluice usage`: GET /admin/usage as a table (or --json). */
import { adminClient, parse, table, UsageError, type Io } from './common.js'

export const USAGE_USAGE = `usage: sluice usage [--by key|model|group] [--from <ISO>] [--to <ISO>] [--key <k>] [--group <g>] [--model <m>] [--json]

Requests, tokens and indicative value, one row per key, model or group (default: per key,
this month so far).

options:
  --by key|model|group the rows (default key)
  --from, --to <ISO>   the period (ISO 8601 or epoch ms)
  --key, --group, --model <name>
                       only this key, group or model
  --json               print the API's JSON instead of a table
  --url <url>          the gateway (default $SLUICE_URL or http://127.0.0.1:8080)
  --admin-key <key>    the admin key (default $SLUICE_ADMIN_KEY)
  -h, --help           this text
`

type Row = Record<string, string | number>

export async function usageCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {
    by: { type: 'string', default: 'key' },
    from: { type: 'string' },
    to: { type: 'string' },
    key: { type: 'string' },
    group: { type: 'string' },
    model: { type: 'string' },
    json: { type: 'boolean', default: false },
  })
  if (values.help) {
    io.out(USAGE_USAGE)
    return 0
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`)
  if (!['key', 'model', 'group'].includes(values.by))
    throw new UsageError(`--by is key, model or group, not ${JSON.stringify(values.by)}`)
  const query = new URLSearchParams({ by: values.by })
  for (const name of ['from', 'to', 'key', 'group', 'model'] as const)
    if (values[name] !== undefined) query.set(name, values[name])
  const answer = (await adminClient(values, io.env).call('GET', `/usage?${query}`)) as {
    from: string
    to: string
    data: Row[]
  }
  if (values.json) {
    io.out(`${JSON.stringify(answer, null, 2)}\n`)
    return 0
  }
  const columns = ['requests', 'prompt_tokens', 'completion_tokens', 'cached_tokens', 'total_tokens', 'value']
  io.out(`usage by ${values.by} from ${answer.from} to ${answer.to}\n`)
  io.out(
    table(
      [values.by, ...columns],
      answer.data.map((r) => [String(r[values.by]), ...columns.map((c) => r[c])]),
    ),
  )
  return 0
}
