/**
 * A batch of usage records as PostgreSQL takes it cheaply: one array parameter per column and
 * one fixed statement that unnests them (`INSERT ... SELECT * FROM unnest($1::bigint[], ...)`),
 * prepared once per connection under a name. A multi-row VALUES list with a parameter per value
 * (10,000 for 500 records) had pg convert and frame each value and PostgreSQL parse and plan a
 * new statement text for every batch size; here it is 20 parameters and a plan kept per
 * connection, whatever the batch holds (docs/performance.md, "Scale-out: CPU a request").
 */
import type { UsageRecord } from '../../contract/records.js'
import { recordColumns, recordValues } from './sql.js'

/** PostgreSQL's type of each column of usage_records, in recordColumns' order (postgres-store.ts's table). */
const recordColumnTypes: Record<(typeof recordColumns)[number], string> = {
  at: 'bigint',
  request_id: 'text',
  key_id: 'text',
  grp: 'text',
  route: 'text',
  model_requested: 'text',
  model: 'text',
  upstream_model: 'text',
  prompt_tokens: 'integer',
  completion_tokens: 'integer',
  cached_tokens: 'integer',
  audio_seconds: 'double precision',
  characters: 'integer',
  usage_source: 'text',
  value: 'double precision',
  status: 'integer',
  outcome: 'text',
  queue_ms: 'integer',
  ttft_ms: 'integer',
  total_ms: 'integer',
  parent_request_id: 'text',
  charged: 'double precision',
  cached: 'smallint',
  fallback_from: 'text',
}

/** A named statement: pg prepares it on a connection the first time and reuses it there. */
export const insertRecordsStatement = {
  name: 'sluice_insert_usage_records',
  text: `INSERT INTO usage_records (${recordColumns.join(', ')}) SELECT * FROM unnest(${recordColumns.map((c, i) => `$${i + 1}::${recordColumnTypes[c]}[]`).join(', ')})`,
}

/** The statement's parameters for a batch: one array per column, each in the batch's order. */
export function recordColumnArrays(batch: readonly UsageRecord[]): (string | number | null)[][] {
  const columns: (string | number | null)[][] = recordColumns.map(() => new Array<string | number | null>(batch.length))
  for (let row = 0; row < batch.length; row++) {
    const values = recordValues(batch[row]!)
    for (let c = 0; c < values.length; c++) columns[c]![row] = values[c]!
  }
  return columns
}
