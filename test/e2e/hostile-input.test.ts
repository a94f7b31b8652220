/**
 * Hostile input through the real gateway, with the simulator in-process behind it (issue 11): each
 * input that used to crash or freeze the process is answered with a 4xx of the documented shape,
 * or served within its bounds, while a normal request sent at the same time is served too. How
 * fast is a benchmark's figure: nothing here is timed.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { wavHeader } from '../../sim/wav.js'
import { TEST_KEY, type TestGateway } from '../support/gateway.js'
import { startAudioGateway } from './audio-gateway.js'

const test = suite('e2e hostile input: answered, the gateway serving others meanwhile')
let gw: TestGateway

test.before(async () => {
  gw = await startAudioGateway()
})
test.after(async () => gw.close())

interface Answer {
  status: number
  body: unknown
}

async function send(path: string, init: RequestInit): Promise<Answer> {
  const res = await fetch(`${gw.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${TEST_KEY}`, ...(init.headers as Record<string, string> | undefined) },
  })
  const text = await res.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // a text reply stays text
  }
  return { status: res.status, body }
}

/** A normal chat request, sent beside a hostile one: the gateway must keep serving it. */
function normalChat(): Promise<Answer> {
  const body = JSON.stringify({
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'Say hello' }],
    max_tokens: 10,
  })
  return send('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
}

/** Sends `hostile` and a normal chat request together; both are answered. */
async function besideNormal(hostile: () => Promise<Answer>): Promise<Answer> {
  const [answer, normal] = await Promise.all([hostile(), normalChat()])
  assert.is(normal.status, 200, `the normal request: ${JSON.stringify(normal.body)}`)
  return answer
}

function errorOf(a: Answer): { message: string; type: string } {
  const e = (a.body as { error?: { message?: unknown; type?: unknown } }).error
  assert.type(e?.message, 'string', JSON.stringify(a.body))
  assert.type(e?.type, 'string')
  return e as { message: string; type: string }
}

// --- Audio headers -----------------------------------------------------------------------------

/** A 42-byte FLAC: the marker and STREAMINFO only, with the rate and sample count given. */
function flacHeader(sampleRate: number, totalSamples: number): Buffer {
  const f = Buffer.alloc(42)
  f.write('fLaC', 0, 'latin1')
  f[4] = 0x80 // last metadata block, type 0 (STREAMINFO)
  f.writeUIntBE(34, 5, 3)
  const b = 8
  f.writeUInt16BE(4096, b)
  f.writeUInt16BE(4096, b + 2)
  // 20 bits of rate, 3 of channels − 1 (mono), 5 of bits − 1 (16), 36 of sample count.
  f[b + 10] = (sampleRate >> 12) & 0xff
  f[b + 11] = (sampleRate >> 4) & 0xff
  f[b + 12] = (sampleRate & 0x0f) << 4
  f[b + 13] = (15 << 4) | (Math.floor(totalSamples / 2 ** 32) & 0x0f)
  f.writeUInt32BE(totalSamples % 2 ** 32, b + 14)
  return f
}

/** An Ogg page: the header, one segment, the packet. */
function oggPage(granule: bigint, packet: Buffer): Buffer {
  const h = Buffer.alloc(28)
  h.write('OggS', 0, 'latin1')
  h.writeBigUInt64LE(granule, 6)
  h[26] = 1
  h[27] = packet.length
  return Buffer.concat([h, packet])
}

/** Ogg Vorbis: an identification header with the rate given, and a last page at `granule`. */
function oggVorbis(sampleRate: number, granule: bigint): Buffer {
  const id = Buffer.alloc(30)
  id.write('\x01vorbis', 0, 'latin1')
  id[11] = 1
  id.writeUInt32LE(sampleRate, 12)
  return Buffer.concat([oggPage(0n, id), oggPage(granule, Buffer.from([0]))])
}

/** Ogg Opus (always 48 kHz granules): OpusHead, and a last page at `granule`. */
function oggOpus(granule: bigint): Buffer {
  const head = Buffer.alloc(19)
  head.write('OpusHead', 0, 'latin1')
  head[8] = 1
  head[9] = 1
  head.writeUInt32LE(16000, 12)
  return Buffer.concat([oggPage(0n, head), oggPage(granule, Buffer.from([0]))])
}

function transcribe(file: Buffer, filename: string, format = 'verbose_json'): () => Promise<Answer> {
  return () => {
    const form = new FormData()
    form.append('model', 'sim-whisper')
    form.append('response_format', format)
    form.append('file', new Blob([file]), filename)
    return send('/v1/audio/transcriptions', { method: 'POST', body: form })
  }
}

test('audio headers with impossible rates or lengths → 400 naming the fault (they used to exhaust the heap)', async () => {
  const cases: [string, Buffer, RegExp][] = [
    [
      'a 42-byte FLAC at 1 Hz claiming 2^36 samples',
      flacHeader(1, 2 ** 36 - 1),
      /^Invalid audio file: a sample rate of 1 Hz is outside 8000 to 768000 Hz\.$/,
    ],
    [
      'a 42-byte FLAC at 8 kHz claiming 2^36 samples',
      flacHeader(8000, 2 ** 36 - 1),
      /^Invalid audio file: its header claims 8589935 s of audio, more than its 42 bytes can hold\.$/,
    ],
    ['a WAV at 1 Hz', Buffer.concat([wavHeader(1024 * 1024, 1), Buffer.alloc(1024 * 1024)]), /sample rate of 1 Hz/],
    ['an Ogg Vorbis at 1 Hz', oggVorbis(1, 2n ** 40n), /sample rate of 1 Hz/],
    ['an Ogg Opus whose last granule is 2^62', oggOpus(2n ** 62n), /more than its \d+ bytes can hold/],
  ]
  for (const [what, file, message] of cases) {
    const answer = await besideNormal(transcribe(file, 'a.audio'))
    assert.is(answer.status, 400, what)
    assert.match(errorOf(answer).message, message, what)
  }
})

test('a legal but long header is served within bounds: 8 kHz 16-bit WAV of 16 MiB, about 17 minutes, 210 segments', async () => {
  const data = 16 * 1024 * 1024
  const answer = await besideNormal(transcribe(Buffer.concat([wavHeader(data, 8000), Buffer.alloc(data)]), 'long.wav'))
  assert.is(answer.status, 200)
  const v = answer.body as { duration: number; segments: unknown[] }
  assert.is(v.duration, 1048.58)
  assert.is(v.segments.length, 210)
})

// --- Multipart ---------------------------------------------------------------------------------

function multipartBody(boundary: string, parts: { name: string; filename?: string; data: string | Buffer }[]): Buffer {
  const chunks: Buffer[] = []
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`),
      Buffer.from(p.data),
      Buffer.from('\r\n'),
    )
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return Buffer.concat(chunks)
}

test('50,000 multipart fields of one name → 413 naming the limit (parsing them took 36 s of event loop)', async () => {
  const boundary = 'hostile-boundary'
  const fields = Array.from({ length: 50_000 }, () => ({ name: 'timestamp_granularities[]', data: 'segment' }))
  const body = multipartBody(boundary, [
    { name: 'model', data: 'sim-whisper' },
    ...fields,
    { name: 'file', filename: 'a.wav', data: wavHeader(3200, 16000) },
  ])
  const answer = await besideNormal(() =>
    send('/v1/audio/transcriptions', {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    }),
  )
  assert.is(answer.status, 413)
  assert.equal(answer.body, { error: { message: 'too many form fields (at most 100)', type: 'gateway_error' } })
})

test('a malformed multipart body → 400 of the documented shape', async () => {
  const body = Buffer.from(
    '--b\r\nContent-Disposition: form-data; name="model"\r\n\r\nsim-whisper\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\nRIFF',
  )
  const answer = await besideNormal(() =>
    send('/v1/audio/transcriptions', {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
      body,
    }),
  )
  assert.is(answer.status, 400)
  assert.equal(answer.body, {
    error: { message: 'invalid multipart body: Unexpected end of form', type: 'gateway_error' },
  })
})

// --- Structured output -------------------------------------------------------------------------

interface Completion {
  choices: {
    finish_reason: string
    message: { content: string | null; tool_calls?: { function: { arguments: string } }[] }
  }[]
  usage: { completion_tokens: number }
}

function chat(body: Record<string, unknown>): () => Promise<Answer> {
  const payload = JSON.stringify({
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'Fill in the form.' }],
    ...body,
  })
  return () =>
    send('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload })
}

const schemaFormat = (schema: unknown) => ({ type: 'json_schema', json_schema: { name: 'hostile', schema } })

test('structured output asking for 1e9 characters or items stops at max_tokens with finish_reason "length"', async () => {
  const schemas: [string, unknown][] = [
    ['minLength 1e9', { type: 'string', minLength: 1e9 }],
    [
      'minItems 1e9',
      {
        type: 'array',
        minItems: 1e9,
        items: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      },
    ],
    [
      'a property requiring itself',
      {
        $defs: { n: { type: 'object', properties: { next: { $ref: '#/$defs/n' } }, required: ['next'] } },
        $ref: '#/$defs/n',
      },
    ],
  ]
  for (const [what, schema] of schemas) {
    const answer = await besideNormal(chat({ max_tokens: 50, response_format: schemaFormat(schema) }))
    assert.is(answer.status, 200, what)
    const c = answer.body as Completion
    assert.is(c.choices[0]!.finish_reason, 'length', what)
    assert.ok(c.usage.completion_tokens <= 50, `${what}: ${c.usage.completion_tokens} tokens`)
    assert.ok(c.choices[0]!.message.content!.length <= 200, what)
  }
})

test('without max_tokens the context window bounds it; streamed, it ends with "length" too; a tool\'s arguments as well', async () => {
  const whole = await besideNormal(
    chat({ response_format: schemaFormat({ type: 'array', minItems: 1e9, items: { type: 'integer' } }) }),
  )
  assert.is(whole.status, 200)
  const c = whole.body as Completion
  assert.is(c.choices[0]!.finish_reason, 'length')
  assert.ok(c.choices[0]!.message.content!.length <= 32768 * 4)

  const streamed = await besideNormal(
    chat({ max_tokens: 30, stream: true, response_format: schemaFormat({ type: 'string', minLength: 1e9 }) }),
  )
  assert.is(streamed.status, 200)
  const events = String(streamed.body)
    .split('\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6)) as { choices: { finish_reason: string | null }[] })
  assert.is(events.at(-1)!.choices[0]!.finish_reason, 'length')

  const tool = {
    type: 'function',
    function: {
      name: 'fill',
      parameters: { type: 'object', properties: { text: { type: 'string', minLength: 1e9 } }, required: ['text'] },
    },
  }
  const call = await besideNormal(chat({ max_tokens: 40, tools: [tool], tool_choice: 'required' }))
  assert.is(call.status, 200)
  const t = call.body as Completion
  assert.is(t.choices[0]!.finish_reason, 'length')
  assert.ok(t.usage.completion_tokens <= 40, `${t.usage.completion_tokens} tokens`)
  assert.ok(t.choices[0]!.message.tool_calls![0]!.function.arguments.length <= 40 * 4)
})

test.run()
