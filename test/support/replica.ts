/** Starts test/support/gateway-process.ts as a child process: another replica of a test gateway. */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { repoRoot } from '../../kernel/contract/paths.js'

export interface Replica {
  readonly url: string
  readonly dataDir: string
  /** What the process wrote to stderr (its log). */
  stderr(): string
  stop(): Promise<void>
  /** SIGKILL: a crash, with nothing flushed or released. */
  kill(): Promise<void>
}

/** `dataDir`: a folder of a previous run, to restart on it (default: a fresh one). */
export async function startReplica(options: {
  configDir: string
  pipelinesDir: string
  env: NodeJS.ProcessEnv
  dataDir?: string
}): Promise<Replica> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-replica-'))
  const script = path.join(repoRoot, 'dist', 'test', 'support', 'gateway-process.js')
  const child: ChildProcess = spawn(process.execPath, [script, options.configDir, options.pipelinesDir, dataDir], {
    env: { PATH: process.env.PATH, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`replica did not start: ${err}`)), 20_000)
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString()
      const m = /READY (\S+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(m[1]!)
      }
    })
    void exited.then(() => reject(new Error(`replica exited: ${err}`)))
  })
  return {
    url,
    dataDir,
    stderr: () => err,
    async stop() {
      child.kill('SIGTERM')
      await exited
    },
    async kill() {
      child.kill('SIGKILL')
      await exited
    },
  }
}
