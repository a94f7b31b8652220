/** Starts bench processes and waits for their `READY <url>` line; kills them all at exit. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'

const children: ChildProcess[] = []

export interface Child {
  url: string
  pid: number
  /** Peak resident memory so far (VmHWM), in MB. */
  peakRssMb(): number
  /** Current resident memory (VmRSS), in MB. */
  rssMb(): number
  /** CPU time used so far (user + system), in ms. */
  cpuMs(): number
  /** CPU time of the process's first thread (the event loop's), in ms: cpuMs() less its worker, GC and I/O threads. */
  mainThreadCpuMs(): number
  stop(): void
}

function statusField(pid: number, field: string): number {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)
  return m ? Number(m[1]) / 1024 : NaN
}

/**
 * utime + stime of /proc/<pid>/stat (or of one thread's, /proc/<pid>/task/<tid>/stat), in ms
 * (clock ticks are 10 ms on Linux); undefined when the process is gone or not readable.
 */
export function processCpuMs(pid: number, tid?: number): number | undefined {
  try {
    const fields = fs
      .readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8')
      .split(') ')[1]!
      .split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return undefined
  }
}

/** CPU time (ms) of several processes so far; one gone since counts 0. */
export function processesCpuMs(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + (processCpuMs(pid) ?? 0), 0)
}

export function startChild(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  nodeArgs: string[] = [],
): Promise<Child> {
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  })
  children.push(child)
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`${script} did not start`)), 20_000)
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const m = /READY (\S+)|(http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        child.stdout!.removeAllListeners('data')
        child.stdout!.resume()
        const pid = child.pid!
        resolve({
          url: m[1] ?? m[2]!,
          pid,
          peakRssMb: () => statusField(pid, 'VmHWM'),
          rssMb: () => statusField(pid, 'VmRSS'),
          cpuMs: () => processCpuMs(pid) ?? NaN,
          mainThreadCpuMs: () => processCpuMs(pid, pid) ?? NaN,
          stop: () => child.kill('SIGTERM'),
        })
      }
    })
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
  })
}

/**
 * Pins a process, all its threads included, to one CPU (taskset, util-linux): the way of
 * measuring a server on one core while the load generator and the simulator share the other.
 */
export function pinToCpu(pid: number, cpu: number): void {
  execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', String(cpu), String(pid)], { stdio: 'ignore' })
}

process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL')
})
