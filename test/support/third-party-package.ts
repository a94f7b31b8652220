/**
 * A third party's package, made in a temporary folder outside the repository, so that what it
 * imports of Sluice resolves exactly as it would for a stranger: `node_modules/sluice` is a
 * link to the repository root, and only the `exports` of package.json lead inside it. Its own
 * development dependencies (@types/node, uvu) are links to the repository's copies. It is
 * type-checked with the repository's tsc and run with `node` as a separate process.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { repoRoot } from '../../kernel/contract/paths.js'

const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc')

/** The compiler options a plugin author would start from: strict ESM for Node, as Sluice itself. */
export const thirdPartyTsconfig = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023'],
    types: ['node'],
    strict: true,
    skipLibCheck: false,
    outDir: 'dist',
    rootDir: 'src',
  },
  include: ['src'],
}

export interface ChildRun {
  code: number | null
  stdout: string
  stderr: string
}

export interface ThirdPartyPackage {
  readonly dir: string
  /** Writes a file, relative to the package's folder. */
  write(file: string, text: string): void
  /** The repository's tsc on the package (`tsc -p <dir>`, plus `args`); its output names files relative to the package. */
  tsc(...args: string[]): { ok: boolean; output: string }
  /** `node <file>` in the package's folder, with only PATH and `env` in its environment. */
  spawn(file: string, env?: NodeJS.ProcessEnv): ChildProcess
  /** As spawn, to its end (killed after `timeoutMs`). */
  run(file: string, env?: NodeJS.ProcessEnv, timeoutMs?: number): Promise<ChildRun>
  remove(): void
}

export function thirdPartyPackage(
  name: string,
  devDependencies: string[] = ['@types/node', 'json-schema-to-ts'],
): ThirdPartyPackage {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-third-party-'))
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), text)
  }
  const devVersions = Object.fromEntries(devDependencies.map((d) => [d, '*']))
  write(
    'package.json',
    `${JSON.stringify({ name, version: '1.0.0', private: true, type: 'module', dependencies: { sluice: '*' }, devDependencies: devVersions }, null, 2)}\n`,
  )
  write('tsconfig.json', `${JSON.stringify(thirdPartyTsconfig, null, 2)}\n`)
  link('sluice', repoRoot)
  for (const d of devDependencies) link(d, path.join(repoRoot, 'node_modules', d))

  function link(module: string, target: string): void {
    const at = path.join(dir, 'node_modules', module)
    fs.mkdirSync(path.dirname(at), { recursive: true })
    fs.symlinkSync(target, at, 'dir')
  }
  function spawnNode(file: string, env: NodeJS.ProcessEnv = {}): ChildProcess {
    return spawn(process.execPath, ['--enable-source-maps', file], {
      cwd: dir,
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
  }
  return {
    dir,
    write,
    tsc(...args) {
      const r = spawnSync(process.execPath, [tsc, '-p', dir, '--pretty', 'false', ...args], {
        cwd: dir,
        encoding: 'utf8',
      })
      return { ok: r.status === 0, output: `${r.stdout}${r.stderr}`.trim() }
    },
    spawn: spawnNode,
    run(file, env = {}, timeoutMs = 60_000) {
      const child = spawnNode(file, env)
      let stdout = ''
      let stderr = ''
      child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()))
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
      return new Promise((resolve) =>
        child.once('close', (code) => {
          clearTimeout(timer)
          resolve({ code, stdout, stderr })
        }),
      )
    },
    remove() {
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}
