/**
 * The README's blocks run as written, on a fresh data folder, in the order a newcomer reads
 * them: its ```sh blocks (but the first, `npm ci && npm start` / `npm test`, which is what CI
 * itself runs) and its ```ts client, in one shell. The server is the one the README starts
 * (`npm start &`, on port 8080), so the port must be free; the whole group is stopped after.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { repoRoot } from '../../kernel/contract/paths.js'
import { fencedBlocks } from '../support/fenced-blocks.js'

const test = suite('docs: the README runs as written')
const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8')
const blocks = fencedBlocks(readme, 'README.md')

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })

test('the first block is the two commands of a bare machine', () => {
  const first = blocks[0]!
  assert.is(first.lang, 'sh')
  assert.match(first.text, /^npm ci && npm start\b/)
  assert.match(first.text, /\nnpm test\b/)
})

test('every other sh block and the ts client run in order against the server the README starts', async () => {
  if (!(await portFree(8080))) {
    // Never passed when not run: under CI a busy port fails the test; elsewhere it says why it skipped.
    if (process.env.CI) assert.unreachable('port 8080 is in use: the README serves on it')
    console.log('  skipped: port 8080 is in use')
    return
  }
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-readme-'))
  const client = path.join(data, 'client.mjs')
  const script: string[] = ['set -e']
  for (const b of blocks.slice(1)) {
    if (b.lang === 'sh') script.push(b.text)
    else if (b.lang === 'ts') {
      // Written beside the repository's node_modules so that `openai` resolves, then run.
      fs.writeFileSync(
        path.join(repoRoot, 'dist', 'readme-client.mjs'),
        `${b.text}\nconsole.log(reply.choices[0].message.content)\n`,
      )
      script.push('node dist/readme-client.mjs')
    }
  }
  fs.writeFileSync(client, script.join('\n'))
  const child = spawn('bash', [client], {
    cwd: repoRoot,
    detached: true,
    // No pre-scripts: `npm test` built the tree just now, and a rebuild here would rewrite dist/
    // under the suite's feet if a source was touched since (a lead editing while tests run).
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      SLUICE_DATA: data,
      SLUICE_LOG_LEVEL: 'warn',
      npm_config_ignore_scripts: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr.on('data', (c: Buffer) => (err += c.toString()))
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 120_000)
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  clearTimeout(timer)
  // The script's `npm start &` outlives it: stop the group, then wait for the port.
  try {
    process.kill(-child.pid!, 'SIGTERM')
  } catch {
    // Already gone.
  }
  for (let i = 0; i < 100 && !(await portFree(8080)); i++) await new Promise((r) => setTimeout(r, 50))
  assert.is(code, 0, `the README's blocks failed:\n${out}\n${err}`)
  assert.match(out, /Sluice is serving on http:\/\/127\.0\.0\.1:8080/, 'the start banner')
  assert.match(out, /"object":"list"/, 'the models list')
  assert.match(out, /"response"/, `the Query service's answer:\n${out}`)
  assert.not.match(out, /sk-my-demo-key\b.*shown only now/, 'a chosen key is not announced as made')
})

test.run()
