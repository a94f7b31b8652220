/**
 * Malformed and hostile multipart/form-data uploads for the transcription and translation
 * routes: a missing or wrong boundary, truncated parts, huge part-header lines, many fields,
 * many files, no file, bad content types, bare LF line ends, hostile field values. A valid form
 * is `model`, `response_format` and a short WAV `file`.
 */
import { wavHeader } from '../../sim/wav.js'
import type { FuzzRandom } from './random.js'

export interface FormPart {
  readonly name: string
  readonly filename?: string
  readonly contentType?: string
  readonly data: string | Buffer
  /** Part header lines beyond Content-Disposition and Content-Type. */
  readonly extraHeaders?: readonly string[]
}

export interface MultipartMutation {
  readonly mutation: string
  readonly contentType: string
  readonly body: Buffer
}

/** A multipart/form-data body, CRLF line ends unless `eol` says otherwise. */
export function formBody(boundary: string, parts: readonly FormPart[], eol = '\r\n'): Buffer {
  const chunks: Buffer[] = []
  for (const p of parts) {
    const disposition = `Content-Disposition: form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`
    const lines = [
      `--${boundary}`,
      disposition,
      ...(p.contentType ? [`Content-Type: ${p.contentType}`] : []),
      ...(p.extraHeaders ?? []),
    ]
    chunks.push(Buffer.from(lines.join(eol) + eol + eol), Buffer.from(p.data), Buffer.from(eol))
  }
  chunks.push(Buffer.from(`--${boundary}--${eol}`))
  return Buffer.concat(chunks)
}

export const shortWav = (): Buffer => Buffer.concat([wavHeader(3200, 16000), Buffer.alloc(3200)])

const formats = ['json', 'text', 'srt', 'vtt', 'verbose_json']
const models = ['sim-whisper', 'sim-parakeet']

/** The valid form the mutations start from, with `file` as given. */
export function validForm(rng: FuzzRandom, file: Buffer, filename = 'a.wav'): FormPart[] {
  return [
    { name: 'model', data: rng.pick(models) },
    { name: 'response_format', data: rng.pick(formats) },
    { name: 'file', filename, contentType: 'audio/wav', data: file },
  ]
}

const hostileValues = [
  '',
  'NaN',
  '-1',
  '1e999',
  'sim-chat-instruct',
  'sim-orpheus',
  'auto',
  'x'.repeat(70_000),
  '\u0000',
  '../../etc/passwd',
  '{"a":1}',
  'é'.repeat(100),
]
const badContentTypes = [
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary="unterminated',
  `multipart/form-data; boundary=${'b'.repeat(200)}`,
  'multipart/mixed; boundary=fuzz',
  'text/plain',
  'application/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz; charset=utf-16',
  'multipart/form-data; boundary=fuzz; boundary=other',
  'MULTIPART/FORM-DATA; BOUNDARY=fuzz',
  '',
]

type Maker = (
  rng: FuzzRandom,
  parts: FormPart[],
) => { mutation: string; contentType?: string; body?: Buffer; parts?: FormPart[]; boundary?: string }

const makers: Record<string, Maker> = {
  'missing boundary': (_rng, parts) => ({
    mutation: 'no boundary parameter',
    contentType: 'multipart/form-data',
    body: formBody('fuzz', parts),
  }),
  'wrong boundary': (rng, parts) => {
    const said = rng.pick(['other', 'fuzz-', 'fuz', '"fuzz"x', 'fuzz '])
    return {
      mutation: `boundary=${said}, body uses fuzz`,
      contentType: `multipart/form-data; boundary=${said}`,
      body: formBody('fuzz', parts),
    }
  },
  truncated: (rng, parts) => {
    const whole = formBody('fuzz', parts)
    const cut = rng.int(0, whole.length - 1)
    return { mutation: `cut at ${cut} of ${whole.length}`, body: whole.subarray(0, cut) }
  },
  'huge header line': (rng, parts) => {
    const n = rng.size(1_000, 200_000)
    const i = rng.int(0, parts.length - 1)
    const line = rng.chance(0.5) ? `X-Fuzz: ${'h'.repeat(n)}` : `Content-Type: audio/${'w'.repeat(n)}`
    const copy = parts.map((p, j) => (j === i ? { ...p, extraHeaders: [line] } : p))
    return { mutation: `a ${n}-byte header line in part ${i}`, parts: copy }
  },
  'many header lines': (rng, parts) => {
    const n = rng.size(100, 5_000)
    const copy = parts.map((p, j) =>
      j === 0 ? { ...p, extraHeaders: Array.from({ length: n }, (_, k) => `X-F${k}: v`) } : p,
    )
    return { mutation: `${n} header lines in one part`, parts: copy }
  },
  'many fields': (rng, parts) => {
    const n = rng.size(50, 20_000)
    const name = rng.chance(0.5) ? 'timestamp_granularities[]' : 'fuzz'
    return {
      mutation: `${n} fields named ${name}`,
      parts: [
        ...parts.slice(0, 2),
        ...Array.from({ length: n }, (): FormPart => ({ name, data: 'segment' })),
        parts[2]!,
      ],
    }
  },
  'many files': (rng, parts) => {
    const n = rng.size(2, 200)
    return {
      mutation: `${n} file parts`,
      parts: [
        ...parts,
        ...Array.from(
          { length: n },
          (_, k): FormPart => ({ name: rng.chance(0.5) ? 'file' : `f${k}`, filename: `${k}.wav`, data: shortWav() }),
        ),
      ],
    }
  },
  'missing file': (_rng, parts) => ({ mutation: 'no file part', parts: parts.slice(0, 2) }),
  'file as a field': (_rng, parts) => ({
    mutation: 'file without filename',
    parts: [...parts.slice(0, 2), { name: 'file', data: shortWav() }],
  }),
  'empty file': (_rng, parts) => ({
    mutation: 'a 0-byte file',
    parts: [...parts.slice(0, 2), { ...parts[2]!, data: Buffer.alloc(0) }],
  }),
  'bad content type': (rng, parts) => {
    const ct = rng.pick(badContentTypes)
    return {
      mutation: `Content-Type ${JSON.stringify(ct.slice(0, 80))}`,
      contentType: ct,
      body: formBody('fuzz', parts),
    }
  },
  'bad part content type': (rng, parts) => {
    const ct = rng.pick([
      '',
      'text/plain; charset=utf-16',
      'application/octet-stream',
      'multipart/mixed; boundary=inner',
      'audio/wav; x="',
      '\u00ff',
    ])
    return {
      mutation: `file part Content-Type ${JSON.stringify(ct)}`,
      parts: [...parts.slice(0, 2), { ...parts[2]!, contentType: ct }],
    }
  },
  'hostile field value': (rng, parts) => {
    const name = rng.pick([
      'model',
      'response_format',
      'language',
      'prompt',
      'temperature',
      'timestamp_granularities[]',
      'stream',
      'file',
    ])
    const value = rng.pick(hostileValues)
    return {
      mutation: `${name} = ${JSON.stringify(value.slice(0, 40))}${value.length > 40 ? `… (${value.length})` : ''}`,
      parts: [...parts, { name, data: value }],
    }
  },
  'hostile names': (rng, parts) => {
    const filename = rng.pick([
      '',
      '../../x.wav',
      'a"b.wav',
      'a\r\nX-Injected: 1',
      '\u0000.wav',
      'é'.repeat(300),
      'x'.repeat(10_000),
    ])
    return {
      mutation: `filename ${JSON.stringify(filename.slice(0, 40))}`,
      parts: [...parts.slice(0, 2), { ...parts[2]!, filename }],
    }
  },
  'bare LF': (_rng, parts) => ({ mutation: 'LF line ends', body: formBody('fuzz', parts, '\n') }),
  'no closing boundary': (_rng, parts) => {
    const whole = formBody('fuzz', parts)
    return { mutation: 'no closing delimiter', body: whole.subarray(0, whole.length - '--fuzz--\r\n'.length) }
  },
  'boundary in data': (_rng, parts) => ({
    mutation: 'the delimiter inside the file data',
    parts: [
      ...parts.slice(0, 2),
      {
        ...parts[2]!,
        data: Buffer.concat([
          shortWav(),
          Buffer.from('\r\n--fuzz\r\nContent-Disposition: form-data; name="model"\r\n\r\nsim-orpheus'),
        ]),
      },
    ],
  }),
  'no disposition': (_rng, parts) => ({
    mutation: 'a part without Content-Disposition',
    body: Buffer.concat([Buffer.from('--fuzz\r\nContent-Type: text/plain\r\n\r\nx\r\n'), formBody('fuzz', parts)]),
  }),
  garbage: (rng) => {
    const n = rng.size(1, 8192)
    return { mutation: `${n} random bytes`, body: rng.bytes(n) }
  },
}

export const multipartMutationNames = Object.keys(makers)

export function multipartMutation(rng: FuzzRandom): MultipartMutation {
  const name = rng.pick(multipartMutationNames)
  const made = makers[name]!(rng, validForm(rng, shortWav()))
  const boundary = made.boundary ?? 'fuzz'
  return {
    mutation: `${name}: ${made.mutation}`,
    contentType: made.contentType ?? `multipart/form-data; boundary=${boundary}`,
    body: made.body ?? formBody(boundary, made.parts ?? []),
  }
}
