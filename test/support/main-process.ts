/**
 * `npm start`'s process (dist/bin/sluice-server.js) spawned as a newcomer runs it: only PATH and
 * the given variables in its environment, port 0, resolved once it prints where it serves.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { repoRoot } from '../../kernel/contract/paths.js'

export const mainScript = path.join(repoRoot, 'dist', 'bin', 'sluice-server.js')

export interface MainProcess {
  child: ChildProcess
  url: string
  /** Everything it printed on stdout so far. */
  stdout: () => string
  exited: Promise<number | null>
}

export function startMainProcess(env: NodeJS.ProcessEnv): Promise<MainProcess> {
  const child = spawn(process.execPath, [mainScript], {
    env: { PATH: process.env.PATH, PORT: '0', SLUICE_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr!.resume()
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 20_000)
    child.stdout!.on('data', () => {
      const m = /serving on (http:\/\/\S+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve({ child, url: m[1]!, stdout: () => out, exited })
      }
    })
    void exited.then((code) => reject(new Error(`exited ${code}: ${out}`)))
  })
}
