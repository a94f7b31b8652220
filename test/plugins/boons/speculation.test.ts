import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import boons from '../../../plugins/boons/index.js'
import { readCheck, LABEL_LINE } from '../../../plugins/boons/speculation-check.js'
import { speculable } from '../../../plugins/boons/speculation.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import { reply } from '../../../kernel/contract/reply.js'
import { GatewayError } from '../../../kernel/contract/errors.js'
import { Usage } from '../../../kernel/contract/usage.js'

const test = suite('plugin boons (speculation)')

type Body = {
  model: string
  messages: { role: string; content: unknown }[]
  max_tokens?: number
  logprobs?: boolean
  top_logprobs?: number
  temperature?: number
}
const calls: { route: string; body: Body }[] = []
/** What the fake models answer: the draft's reply, and the check's top logprobs (or an error). */
let draftReply: unknown
let checkReply: unknown
const kernel = makeKernel({
  call: async (route, body) => {
    calls.push({ route, body: body as Body })
    const answer = (body as Body).model === 'sim-draft' ? draftReply : checkReply
    if (answer instanceof GatewayError) throw answer
    return { reply: reply.json(answer), headers: new Map(), usage: new Usage(undefined) }
  },
})
const principal = { keyId: 'demo', group: 'demo', legacy: false }
const draft = (content: string, finish = 'stop') => ({
  id: 'chatcmpl-d',
  created: 1,
  choices: [{ message: { role: 'assistant', content }, finish_reason: finish }],
  usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 },
})
const verdict = (yes: number, no: number) => ({
  choices: [
    {
      message: { content: yes >= no ? 'yes' : 'no' },
      logprobs: {
        content: [
          {
            token: yes >= no ? 'yes' : 'no',
            logprob: Math.log(Math.max(yes, no)),
            top_logprobs: [
              { token: 'yes', logprob: Math.log(yes) },
              { token: ' No', logprob: Math.log(no) },
              { token: 'The', logprob: Math.log(0.01) },
            ],
          },
        ],
      },
    },
  ],
})
const run = (body: Record<string, unknown>, headers: Record<string, string> = {}, model = 'sim-large') =>
  runPlugin(
    boons,
    {},
    {
      kernel,
      principal,
      headers,
      state: { model: { requested: model, model: kernel.catalog.model(model)! } },
      body: { messages: [{ role: 'user', content: 'hello' }], ...body },
    },
  )

test('accepted: the draft is the reply under the large model’s server name, and the route stops there', async () => {
  calls.length = 0
  draftReply = draft('Hi there.')
  checkReply = verdict(0.8, 0.2)
  const r = await run({ max_tokens: 50, temperature: 0.3 })
  assert.is(r.nextCalled, false)
  assert.is(r.ex.headers.get('x-gateway-boons'), 'speculation')
  const body = (r.ex.reply as { body: { model: string; choices: { message: { content: string } }[]; usage: unknown } })
    .body
  assert.is(body.model, 'sim-large-70b')
  assert.is(body.choices[0]!.message.content, 'Hi there.')
  assert.equal(body.usage, draft('').usage)
  // The draft: the request's own sampling and limit; the check: the draft as the assistant's reply, then the question, one token with logprobs.
  assert.equal(
    calls.map((c) => [c.route, c.body.model]),
    [
      ['chat-internal', 'sim-draft'],
      ['chat-internal', 'sim-large'],
    ],
  )
  assert.equal([calls[0]!.body.max_tokens, calls[0]!.body.temperature], [50, 0.3])
  const check = calls[1]!.body
  assert.equal([check.max_tokens, check.logprobs, check.temperature], [1, true, 0])
  assert.equal(check.messages.slice(0, 2), [
    { role: 'user', content: 'hello' },
    { role: 'assistant', content: 'Hi there.' },
  ])
  assert.ok((check.messages[2]!.content as string).endsWith(LABEL_LINE))
})

test('accepted and streamed: role, the text in pieces that add up to it, stop, usage when asked', async () => {
  draftReply = draft('One two  three.')
  checkReply = verdict(0.9, 0.1)
  const r = await run({ stream: true, stream_options: { include_usage: true } })
  const events = r.events as {
    choices: { delta: { content?: string; role?: string }; finish_reason: string | null }[]
    usage?: unknown
  }[]
  assert.is(events[0]!.choices[0]!.delta.role, 'assistant')
  assert.is(events.map((e) => e.choices[0]?.delta.content ?? '').join(''), 'One two  three.')
  assert.is(events.at(-2)!.choices[0]!.finish_reason, 'stop')
  assert.equal(events.at(-1)!.usage, draft('').usage)
})

test('rejected by the check: the route goes on to the large model; the header still says speculation', async () => {
  draftReply = draft('Hi there.')
  checkReply = verdict(0.3, 0.7)
  const r = await run({})
  assert.is(r.nextCalled, true)
  assert.equal(r.ex.reply, { kind: 'json', status: 200, body: { ok: true } })
  assert.is(r.ex.headers.get('x-gateway-boons'), 'speculation')
})

test('a draft cut at its limit is rejected without a check; min_yes_probability and max_draft_tokens from models.yaml', async () => {
  calls.length = 0
  draftReply = draft('Hi', 'length')
  const r = await run({})
  assert.is(r.nextCalled, true)
  assert.is(calls.length, 1, 'no check')
  assert.is(calls[0]!.body.max_tokens, 512, "the boon's max_draft_tokens when the request sets none")
})

test('a failing draft or check: speculation gives up quietly and the large model answers; it did not act', async () => {
  for (const [d, c] of [
    [new GatewayError(503, 'busy'), verdict(1, 0.01)],
    [draft('Hi.'), new GatewayError(500, 'boom')],
  ]) {
    draftReply = d
    checkReply = c
    const r = await run({})
    assert.is(r.error, undefined)
    assert.is(r.nextCalled, true)
    assert.is(r.ex.headers.get('x-gateway-boons'), undefined)
  }
})

test('off, models that did not opt in, and requests it cannot serve: no call at all', async () => {
  calls.length = 0
  draftReply = draft('Hi.')
  checkReply = verdict(1, 0.01)
  await run({}, { 'x-gateway-boons': 'off' })
  await run({}, {}, 'sim-text-plain')
  await run({ tools: [{ type: 'function', function: { name: 'f' } }] })
  await run({ n: 3 })
  assert.is(calls.length, 0)
})

test('speculable: plain text conversations only', () => {
  const m = [
    { role: 'system', content: 's' },
    { role: 'user', content: [{ type: 'text', text: 'hi' }] },
  ]
  assert.ok(speculable({ messages: m }))
  assert.ok(speculable({ messages: m, tool_choice: 'none', n: 1, response_format: { type: 'text' } }))
  for (const extra of [
    { logprobs: true },
    { top_logprobs: 2 },
    { n: 2 },
    { response_format: { type: 'json_schema' } },
    { tools: [{}] },
    { tool_choice: 'auto' },
    { echo: true },
    { modalities: ['text', 'audio'] },
  ])
    assert.not.ok(speculable({ messages: m, ...extra }), JSON.stringify(extra))
  assert.not.ok(
    speculable({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:' } }] }] }),
  )
  assert.not.ok(speculable({ messages: [{ role: 'tool', content: 'x' }] }))
  assert.not.ok(speculable({ messages: [{ role: 'assistant', content: null, tool_calls: [] }] }))
  assert.not.ok(speculable({ messages: [] }))
})

test('readCheck: spellings of a label add up; the share of yes against the threshold; no logprobs; no label', () => {
  const top = (entries: [string, number][]) => ({
    choices: [
      {
        logprobs: {
          content: [
            {
              token: entries[0]![0],
              logprob: Math.log(entries[0]![1]),
              top_logprobs: entries.map(([token, p]) => ({ token, logprob: Math.log(p) })),
            },
          ],
        },
      },
    ],
  })
  const r = readCheck(
    top([
      ['no', 0.4],
      ['Yes', 0.3],
      [' yes', 0.2],
      ['The', 0.1],
    ]),
    0.5,
  )
  assert.ok(Math.abs(r.yes! - 5 / 9) < 1e-9)
  assert.is(r.accepted, true, 'yes wins over its spellings even though no is the top token')
  assert.is(
    readCheck(
      top([
        ['yes', 0.6],
        ['no', 0.4],
      ]),
      0.7,
    ).accepted,
    false,
    'not certain enough',
  )
  assert.equal(readCheck({ choices: [{ message: { content: 'Yes.' }, logprobs: null }] }, 0.9), {
    yes: 1,
    accepted: true,
  })
  assert.equal(readCheck({ choices: [{ message: { content: 'no' } }] }, 0.5), { yes: 0, accepted: false })
  assert.equal(
    readCheck(
      top([
        ['The', 0.5],
        ['Based', 0.25],
      ]),
      0.5,
    ),
    { yes: undefined, accepted: false },
  )
  assert.equal(readCheck({}, 0), { yes: undefined, accepted: false })
})

test.run()
