import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import verdicts from '../../../plugins/verdicts/index.js'
import { runPlugin } from '../../../bin/testing/harness.js'
import { completion, fakeChat } from './fake-chat.js'

const test = suite('verdicts: validation rows (status and message)')
const demo = { keyId: 'demo', group: 'demo', legacy: false }
const MiB = 1024 * 1024

/** A chat route that answers every question with a label of each kind. */
function answering() {
  return fakeChat(() =>
    completion({
      top: [
        ['Yes', 0.6],
        ['A', 0.2],
        ['1', 0.1],
        ['No', 0.05],
        ['B', 0.02],
        ['0', 0.01],
      ],
    }),
  )
}

const yes = { type: 'boolean', instructions: 'Is it about cats?' }

async function run(body: unknown) {
  const chat = answering()
  const result = await runPlugin(verdicts, {}, { kernel: chat.kernel, principal: demo, body })
  return { ...result, calls: chat.calls }
}

async function refused(body: unknown, status: number, message: string) {
  const r = await run(body)
  assert.ok(r.error, `refused: ${message}`)
  assert.is(r.error!.status, status)
  assert.is(r.error!.message, message)
  assert.is(r.calls.length, 0, 'no model was called')
}

function questions(n: number, q: unknown = yes): Record<string, unknown> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, q]))
}

function dataUrl(bytes: number): string {
  return `data:image/png;base64,${Buffer.alloc(bytes, 7).toString('base64')}`
}

test('unknown question type: 400 "invalid request: unknown variant for question type"', async () => {
  await refused(
    { state: 's', questions: { a: { type: 'rating', instructions: 'x' } } },
    400,
    'invalid request: unknown variant for question type',
  )
  await refused(
    { state: 's', questions: { a: { instructions: 'x' } } },
    400,
    'invalid request: unknown variant for question type',
  )
  await refused(
    { state: 's', questions: { a: { type: 7, instructions: 'x' } } },
    400,
    'invalid request: unknown variant for question type',
  )
})

test('state: a string, object or array; left out only with images (400)', async () => {
  const message = 'state must be a string, object or array, and may be left out only when images are given'
  await refused({ questions: { a: yes } }, 400, message)
  await refused({ state: null, questions: { a: yes } }, 400, message)
  await refused({ state: 42, questions: { a: yes } }, 400, message)
  await refused({ state: true, images: [dataUrl(10)], questions: { a: yes } }, 400, message)
  for (const ok of [
    { images: [dataUrl(10)] },
    { state: null, images: [dataUrl(10)] },
    { state: '' },
    { state: { a: 1 } },
    { state: [1, 2] },
  ]) {
    const r = await run({ ...ok, questions: { a: yes } })
    assert.is(r.error, undefined, JSON.stringify(ok).slice(0, 60))
    assert.is(r.reply?.status, 200)
  }
})

test('1 to 32 questions: 400 "too many questions: N (maximum 32)", and for none', async () => {
  await refused({ state: 's', questions: questions(33) }, 400, 'too many questions: 33 (maximum 32)')
  await refused({ state: 's', questions: questions(100) }, 400, 'too many questions: 100 (maximum 32)')
  await refused({ state: 's', questions: {} }, 400, 'too few questions: 0 (minimum 1)')
  await refused({ state: 's' }, 400, 'questions is required: an object of 1 to 32 questions keyed by id')
  await refused({ state: 's', questions: [yes] }, 400, 'questions must be an object of 1 to 32 questions keyed by id')
  const r = await run({ state: 's', questions: questions(32) })
  assert.is(r.reply?.status, 200)
  assert.is(r.calls.length, 32, 'one model call per question')
})

test('question ids up to 64 bytes (bytes, not characters)', async () => {
  await refused(
    { state: 's', questions: { ['x'.repeat(65)]: yes } },
    400,
    'question id is too long: 65 bytes (maximum 64)',
  )
  await refused(
    { state: 's', questions: { ['é'.repeat(33)]: yes } },
    400,
    'question id is too long: 66 bytes (maximum 64)',
  )
  await refused({ state: 's', questions: { '': yes } }, 400, 'question id must not be empty')
  const r = await run({ state: 's', questions: { ['é'.repeat(32)]: yes, ['x'.repeat(64)]: yes } })
  assert.is(r.reply?.status, 200)
})

test('choice: 2 to 26 options, names up to 200 bytes, descriptions string or null', async () => {
  const choice = (criteria: unknown) => ({
    state: 's',
    questions: { c: { type: 'choice', instructions: 'Which?', criteria } },
  })
  const options = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`option ${i}`, null]))
  await refused(choice(options(1)), 400, 'question c: a choice needs 2 to 26 options, not 1')
  await refused(choice(options(27)), 400, 'question c: a choice needs 2 to 26 options, not 27')
  await refused(
    choice(undefined),
    400,
    'question c: choice criteria must be an object mapping each option name to a description (or null)',
  )
  await refused(
    choice(['a', 'b']),
    400,
    'question c: choice criteria must be an object mapping each option name to a description (or null)',
  )
  await refused(
    choice({ ['n'.repeat(201)]: null, b: null }),
    400,
    'question c: option name is too long: 201 bytes (maximum 200)',
  )
  await refused(choice({ a: 1, b: null }), 400, 'question c: the description of option a must be a string or null')
  for (const ok of [options(2), options(26), { ['n'.repeat(200)]: 'long name', b: null }]) {
    const r = await run(choice(ok))
    assert.is(r.reply?.status, 200)
  }
})

test('score: 2 to 10 levels of descriptions', async () => {
  const score = (criteria: unknown) => ({
    state: 's',
    questions: { s: { type: 'score', instructions: 'How much?', criteria } },
  })
  const levels = (n: number) => Array.from({ length: n }, (_, i) => `level ${i + 1}`)
  await refused(score(levels(1)), 400, 'question s: a score needs 2 to 10 levels, not 1')
  await refused(score(levels(11)), 400, 'question s: a score needs 2 to 10 levels, not 11')
  await refused(
    score({ a: 'x' }),
    400,
    'question s: score criteria must be an array of level descriptions, lowest first',
  )
  await refused(score(['low', 3]), 400, 'question s: level 2 must be a string')
  for (const n of [2, 10]) assert.is((await run(score(levels(n)))).reply?.status, 200)
})

test('boolean criteria are optional; when given, true and false are strings', async () => {
  await refused(
    { state: 's', questions: { b: { ...yes, criteria: 'yes' } } },
    400,
    'question b: boolean criteria must be an object with keys true and false',
  )
  await refused(
    { state: 's', questions: { b: { ...yes, criteria: { true: 1 } } } },
    400,
    'question b: criteria.true must be a string',
  )
  await refused(
    { state: 's', questions: { b: { type: 'boolean', instructions: '' } } },
    400,
    'question b: instructions must be a non-empty string',
  )
  assert.is(
    (await run({ state: 's', questions: { b: { ...yes, criteria: { true: 'a cat is named', false: 'no cat' } } } }))
      .reply?.status,
    200,
  )
})

test('rendered state up to 2 MiB: 413 "rendered state is too large", counting the indented JSON', async () => {
  await refused({ state: 'x'.repeat(2 * MiB + 1), questions: { a: yes } }, 413, 'rendered state is too large')
  // Compact, this array is under 2 MiB; rendered with indentation it is over.
  const array = new Array(500_000).fill(1)
  assert.ok(JSON.stringify(array).length < 2 * MiB && JSON.stringify(array, null, 2).length > 2 * MiB)
  await refused({ state: array, questions: { a: yes } }, 413, 'rendered state is too large')
  assert.is((await run({ state: 'x'.repeat(2 * MiB), questions: { a: yes } })).reply?.status, 200)
})

test('images: up to 8, base64 data URLs or public https URLs', async () => {
  await refused(
    { images: Array.from({ length: 9 }, () => dataUrl(10)), questions: { a: yes } },
    400,
    'too many images: 9 (maximum 8)',
  )
  await refused(
    { images: ['http://example.com/cat.png'], questions: { a: yes } },
    400,
    'images[0] must be a base64 data URL or a public https:// URL',
  )
  await refused(
    { images: [dataUrl(4), 'https://127.0.0.1/cat.png'], questions: { a: yes } },
    400,
    'images[1] must be a base64 data URL or a public https:// URL',
  )
  await refused(
    { images: ['https://localhost/cat.png'], questions: { a: yes } },
    400,
    'images[0] must be a base64 data URL or a public https:// URL',
  )
  await refused(
    { images: ['data:text/plain;base64,aGk='], questions: { a: yes } },
    400,
    'images[0] must be a base64 data URL or a public https:// URL',
  )
  await refused(
    { images: 'https://example.com/cat.png', questions: { a: yes } },
    400,
    'images must be an array of strings',
  )
  const r = await run({
    images: [...Array.from({ length: 7 }, () => dataUrl(10)), 'https://example.com/cat.png'],
    questions: { a: yes },
  })
  assert.is(r.reply?.status, 200)
})

test('image data up to 20 MiB, and image size times questions up to 64 MiB (413)', async () => {
  await refused(
    { images: [dataUrl(12 * MiB), dataUrl(8 * MiB + 3)], questions: { a: yes } },
    413,
    `image data is too large: ${20 * MiB + 3} bytes (maximum 20 MiB)`,
  )
  await refused(
    { images: [dataUrl(3 * MiB)], questions: questions(22) },
    413,
    `image data times questions is too large: ${3 * MiB} bytes × 22 questions (maximum 64 MiB); send fewer questions or smaller images`,
  )
  assert.is(
    (await run({ images: [dataUrl(2 * MiB)], questions: questions(32) })).reply?.status,
    200,
    '2 MiB × 32 = 64 MiB is allowed',
  )
  assert.is(
    (await run({ images: [dataUrl(10 * MiB), dataUrl(10 * MiB)], questions: questions(3) })).reply?.status,
    200,
    '20 MiB is allowed',
  )
})

test('unknown fields, temperature, max_tokens and stream are ignored', async () => {
  const r = await run({
    state: 's',
    questions: { a: yes },
    temperature: 1.7,
    max_tokens: 900,
    stream: true,
    top_p: 0.2,
    colour: 'blue',
  })
  assert.is(r.reply?.status, 200)
  assert.is(r.reply?.kind, 'json', 'never streamed')
  const body = r.calls[0]!.body
  assert.is(body.max_tokens, 1)
  assert.is(body.temperature, 0)
  assert.is(body.stream, undefined)
  assert.is(body.top_p, undefined)
  assert.is(body.colour, undefined)
})

test('a model that is not a string: 400', async () => {
  await refused({ model: 5, state: 's', questions: { a: yes } }, 400, 'model must be a string')
})

test.run()
