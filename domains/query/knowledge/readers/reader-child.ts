/**
 * A reader process (reader-pool.ts forks it with its heap limit; reader-process.ts says how):
 * says it is ready, then reads the documents it is sent, one at a time, and answers each with
 * its outcome or its refusal and its resident memory. It exits when the gateway closes the
 * channel (or goes), and all the memory it used goes back to the system with it.
 */
import { refusalOf, runTask, type ReaderTask } from './reader-task.js'
import type { FromReader } from './reader-process.js'

const channel = process.send?.bind(process)
if (!channel) throw new Error('reader-child.js runs only as a child process with an IPC channel (reader-pool.ts)')
const send = (m: FromReader) => channel(m)

process.on('message', async ({ id, task }: { id: number; task: ReaderTask }) => {
  try {
    const result = await runTask(task)
    send({ id, ok: true, result, rss: process.memoryUsage.rss() })
  } catch (err) {
    send({ id, ok: false, refusal: refusalOf(err, task.limits), rss: process.memoryUsage.rss() })
  }
})
process.on('disconnect', () => process.exit(0))
send({ ready: true }) // messages sent before the listener above was set would be lost
