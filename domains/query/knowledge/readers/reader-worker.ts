/**
 * A reader worker thread (reader-pool.ts starts it with its heap limit): reads the documents
 * it is sent, one at a time, and answers each with its outcome or its refusal.
 */
import { parentPort } from 'node:worker_threads'
import { refusalOf, runTask, type ReaderTask } from './reader-task.js'

const port = parentPort
if (!port) throw new Error('reader-worker.js runs only as a worker thread')

port.on('message', async ({ id, task }: { id: number; task: ReaderTask }) => {
  try {
    const result = await runTask(task)
    port.postMessage({ id, ok: true, result })
  } catch (err) {
    port.postMessage({ id, ok: false, refusal: refusalOf(err, task.limits) })
  }
})
