/**
 * A small pg pool for one Query store, its tables made at open under an advisory lock so that
 * replicas starting together do not race. The schema is a fixed identifier from config
 * (server.schema.ts checks it), never request text.
 */
import pg from 'pg'

export async function openQueryPool(url: string, schema: string, ddl: string): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${schema}`, connectionTimeoutMillis: 5000 })
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined)
  try {
    const client = await pool.connect()
    try {
      await client.query('SELECT pg_advisory_lock(hashtext($1))', ['sluice-schema'])
      try {
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
        await client.query(ddl)
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', ['sluice-schema'])
      }
    } finally {
      client.release()
    }
  } catch (err) {
    await pool.end()
    throw err
  }
  return pool
}
