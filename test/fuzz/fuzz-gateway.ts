/**
 * The gateway a fuzz run drives: the shipped pipelines and keys (tenants may not drive the
 * simulator with its control headers), the simulator's audio timings at zero so a run is fast,
 * an admin key so the admin API is reached past its door, and a log kept short (warnings and
 * errors, the last 200) so the log itself does not grow the heap being measured. Warmed up with
 * one request of each kind, so modules loaded on first use are in the baseline.
 */
import fs from 'node:fs'
import path from 'node:path'
import { createLogger } from '../../kernel/contract/log.js'
import { defaultConfigDir } from '../../kernel/contract/paths.js'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { zeroAudioTimings } from '../e2e/audio-gateway.js'
import { formBody, shortWav } from './multipart-mutations.js'
import type { Keys } from './campaign.js'

export const FUZZ_ADMIN_KEY = 'sk-fuzz-admin-key'

export interface FuzzGateway {
  gw: TestGateway
  keys: Keys
  /** The last warnings and errors the gateway logged. */
  recentErrors(): string[]
}

export async function startFuzzGateway(): Promise<FuzzGateway> {
  const recent: string[] = []
  const sink = {
    write(line: string) {
      recent.push(line)
      if (recent.length > 200) recent.shift()
    },
  }
  const simulator = zeroAudioTimings(fs.readFileSync(path.join(defaultConfigDir, 'simulator.yaml'), 'utf8'))
  const gw = await startTestGateway({
    simulatorControls: false,
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: FUZZ_ADMIN_KEY },
    log: createLogger({ level: 'warn', sink }),
    files: { 'config/simulator.yaml': simulator },
  })
  const keys = { tenant: TEST_KEY, admin: FUZZ_ADMIN_KEY }
  await normalRequests(gw, keys)
  return { gw, keys, recentErrors: () => [...recent] }
}

/** One ordinary request of each kind; throws unless each succeeds. */
export async function normalRequests(gw: TestGateway, keys: Keys): Promise<void> {
  const auth = { authorization: `Bearer ${keys.tenant}` }
  const json = { ...auth, 'content-type': 'application/json' }
  const checks: [string, Promise<Response>][] = [
    [
      'chat',
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          model: 'sim-chat-instruct',
          messages: [{ role: 'user', content: 'hi' }],
          max_tokens: 4,
        }),
      }),
    ],
    [
      'speech',
      fetch(`${gw.url}/v1/audio/speech`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ model: 'sim-orpheus', input: 'Hello.', voice: 'tara', response_format: 'mp3' }),
      }),
    ],
    [
      'transcription',
      fetch(`${gw.url}/v1/audio/transcriptions`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'multipart/form-data; boundary=fuzz' },
        body: formBody('fuzz', [
          { name: 'model', data: 'sim-whisper' },
          { name: 'file', filename: 'a.wav', data: shortWav() },
        ]),
      }),
    ],
    [
      'verdicts',
      fetch(`${gw.url}/v1/verdicts`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          model: 'sim-chat-instruct',
          state: 'x',
          questions: { q: { type: 'boolean', instructions: 'Is it?' } },
        }),
      }),
    ],
    ['admin', fetch(`${gw.url}/admin/keys`, { headers: { authorization: `Bearer ${keys.admin}` } })],
    [
      'catalog',
      fetch(`${gw.url}/catalog`, {
        method: 'POST',
        headers: { 'content-type': 'text/xml; charset=utf-8' },
        body: '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><RequiresTokens xmlns="http://www.example.org/schemas/GIS/10.7"/></soap:Body></soap:Envelope>',
      }),
    ],
  ]
  for (const [name, pending] of checks) {
    const res = await pending
    const text = await res.text()
    if (res.status !== 200) throw new Error(`the normal ${name} request got ${res.status}: ${text.slice(0, 300)}`)
  }
}
