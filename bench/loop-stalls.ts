/**
 * The gateway's own view of its event loop, for the hostile benches: loaded into the server with
 * `node --import ./dist/bench/loop-stalls.js dist/bin/sluice-server.js`, a 1 ms timer notes every
 * stretch of 25 ms or more in which it could not run, one JSON line each
 * (`{"from": µs, "to": µs, "ms": …}`, process.hrtime) appended to SLUICE_STALLS_FILE (default
 * `loop-stalls-<pid>.jsonl` in the working folder). A probe from outside measures the same plus
 * the machine's and the client's delays; this is the longest single turn, and with
 * `--cpu-prof` the profile says what filled it. Not loaded by anything in the product.
 */
import fs from 'node:fs'
import { isMainThread } from 'node:worker_threads'

if (isMainThread) {
  const out = fs.openSync(process.env.SLUICE_STALLS_FILE ?? `loop-stalls-${process.pid}.jsonl`, 'a')
  let last = process.hrtime.bigint()
  setInterval(() => {
    const now = process.hrtime.bigint()
    const ms = Number(now - last) / 1e6
    if (ms >= 25)
      fs.writeSync(
        out,
        `${JSON.stringify({ from: Number(last / 1000n), to: Number(now / 1000n), ms: +ms.toFixed(1) })}\n`,
      )
    last = now
  }, 1).unref()
}
