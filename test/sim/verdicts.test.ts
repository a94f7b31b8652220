import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { RunningSimulator } from '../../sim/index.js'
import { chatBody, postJson, startTestSimulator } from './helpers.js'

const verdicts = suite<{ sim: RunningSimulator }>('sim: verdict prompts')

verdicts.before(async (ctx) => {
  ctx.sim = await startTestSimulator()
})
verdicts.after(async (ctx) => {
  await ctx.sim.close()
})

const oneToken = { max_tokens: 1, logprobs: true, top_logprobs: 20, temperature: 0 }
const prompt = (content: string, labels: string) =>
  `${content}\n\nQuestion: which?\n\nAnswer with exactly one of these labels: ${labels}.`

/** Sums the listed probability per label, case and leading space folded. */
function labelMass(top: Array<{ token: string; logprob: number }>, labels: string[]): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(labels.map((l) => [l, 0]))
  for (const { token, logprob } of top) {
    const label = labels.find((l) => l.toUpperCase() === token.trimStart().toUpperCase())
    if (label) out[label]! += Math.exp(logprob)
  }
  return out
}

verdicts(
  'a verdict prompt is answered with a label; the top 20 spread over labels and their variants',
  async ({ sim }) => {
    const { status, body } = await postJson(
      sim,
      '/v1/chat/completions',
      chatBody(prompt('The sky is blue.', 'Yes, No'), oneToken),
    )
    assert.is(status, 200)
    const choice = body.choices[0]!
    assert.ok(['Yes', 'No'].includes(choice.message.content!), `answered ${choice.message.content}`)
    assert.is(choice.finish_reason, 'length')
    assert.is(body.usage.completion_tokens, 1)
    const first = choice.logprobs!.content[0]!
    assert.is(first.token, choice.message.content)
    assert.is(first.top_logprobs.length, 20, 'exactly the top 20, as vLLM lists them')
    assert.is(first.top_logprobs[0]!.token, first.token, 'greedy: the chosen token is the most likely')
    assert.ok(
      first.top_logprobs.some((t) => t.token === ' Yes' || t.token === 'yes'),
      'spelling variants are listed',
    )
    const mass = labelMass(first.top_logprobs, ['Yes', 'No'])
    const total = mass.Yes! + mass.No!
    assert.ok(total > 0.85 && total < 1, `most probability on labels (${total})`)
  },
)

verdicts('deterministic per prompt, and different for different content', async ({ sim }) => {
  const a = await postJson(sim, '/v1/chat/completions', chatBody(prompt('Content one.', 'A, B, C, D'), oneToken))
  const again = await postJson(sim, '/v1/chat/completions', chatBody(prompt('Content one.', 'A, B, C, D'), oneToken))
  assert.equal(again.body.choices[0]!.logprobs, a.body.choices[0]!.logprobs)
  const distributions = new Set<string>()
  for (let i = 0; i < 6; i++) {
    const r = await postJson(
      sim,
      '/v1/chat/completions',
      chatBody(prompt(`Content number ${i}.`, 'A, B, C, D'), oneToken),
    )
    distributions.add(JSON.stringify(r.body.choices[0]!.logprobs!.content[0]!.top_logprobs.slice(0, 4)))
  }
  assert.ok(distributions.size > 1, 'the content moves the distribution')
})

verdicts('markers: prefer, omit, uniform', async ({ sim }) => {
  const preferred = await postJson(
    sim,
    '/v1/chat/completions',
    chatBody(prompt('[sim-verdict: prefer=C] text', 'A, B, C, D'), oneToken),
  )
  assert.is(preferred.body.choices[0]!.message.content, 'C')
  const omitted = await postJson(
    sim,
    '/v1/chat/completions',
    chatBody(prompt('[sim-verdict: omit=B, prefer=A] text', 'A, B, C'), oneToken),
  )
  const top = omitted.body.choices[0]!.logprobs!.content[0]!.top_logprobs
  assert.is(top.length, 20)
  assert.not.ok(
    top.some((t) => t.token.trimStart().toUpperCase() === 'B'),
    'B and its variants are outside the top 20',
  )
  assert.ok(top.some((t) => t.token === 'C'))
  const uniform = await postJson(
    sim,
    '/v1/chat/completions',
    chatBody(prompt('[sim-verdict: uniform]', '1, 2, 3'), oneToken),
  )
  const mass = labelMass(uniform.body.choices[0]!.logprobs!.content[0]!.top_logprobs, ['1', '2', '3'])
  assert.ok(Math.abs(mass['1']! - mass['3']!) < 1e-5 && Math.abs(mass['1']! - mass['2']!) < 1e-5, JSON.stringify(mass))
})

verdicts('markers: no logprobs, and an unrecognizable first token', async ({ sim }) => {
  const bare = await postJson(
    sim,
    '/v1/chat/completions',
    chatBody(prompt('[sim-verdict: no-logprobs]', 'Yes, No'), oneToken),
  )
  assert.is(bare.status, 200)
  assert.is(bare.body.choices[0]!.logprobs, null)
  assert.ok(['Yes', 'No'].includes(bare.body.choices[0]!.message.content!))
  const lost = await postJson(
    sim,
    '/v1/chat/completions',
    chatBody(prompt('[sim-verdict: unrecognizable]', 'Yes, No'), oneToken),
  )
  const first = lost.body.choices[0]!.logprobs!.content[0]!
  assert.not.ok(['YES', 'NO'].includes(first.token.trimStart().toUpperCase()))
  assert.not.ok(
    first.top_logprobs.some((t) => ['YES', 'NO'].includes(t.token.trimStart().toUpperCase())),
    'no label in the top 20',
  )
})

verdicts('only one-token requests with top logprobs are verdicts; others are ordinary text', async ({ sim }) => {
  const long = await postJson(
    sim,
    '/v1/chat/completions',
    chatBody(prompt('[sim-verdict: prefer=B]', 'A, B'), { max_tokens: 5, logprobs: true, top_logprobs: 5 }),
  )
  assert.is(long.body.choices[0]!.logprobs!.content[0]!.top_logprobs.length, 5)
  const noTop = await postJson(
    sim,
    '/v1/chat/completions',
    chatBody(prompt('[sim-verdict: prefer=B]', 'A, B'), { max_tokens: 1 }),
  )
  assert.is(noTop.body.choices[0]!.logprobs, null)
  assert.not.equal(noTop.body.choices[0]!.message.content, 'B')
})

verdicts('a thinking model spends its one token thinking; with thinking off it answers a label', async ({ sim }) => {
  const thinking = await postJson(sim, '/v1/chat/completions', {
    ...chatBody(prompt('text', 'Yes, No'), oneToken),
    model: 'sim-thinker-8b',
  })
  const message = thinking.body.choices[0]!.message
  assert.is(message.content, '')
  assert.ok((message.reasoning ?? '').length > 0, 'the token went to reasoning')
  assert.equal(thinking.body.choices[0]!.logprobs?.content ?? [], [])
  const direct = await postJson(sim, '/v1/chat/completions', {
    ...chatBody(prompt('text', 'Yes, No'), oneToken),
    model: 'sim-thinker-8b',
    reasoning_effort: 'medium',
    chat_template_kwargs: { enable_thinking: false },
  })
  assert.ok(['Yes', 'No'].includes(direct.body.choices[0]!.message.content!))
})

verdicts.run()
