/** One PostgreSQL transaction on a pooled connection: committed when `work` resolves, rolled back when it throws. */
import type pg from 'pg'

export async function inTransaction<T>(pool: pg.Pool, work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect()
  try {
    await c.query('BEGIN')
    const result = await work(c)
    await c.query('COMMIT')
    return result
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined)
    throw err
  } finally {
    c.release()
  }
}
