import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import reasoning from '../../../plugins/reasoning/index.js'
import { makeKernel, runPlugin } from '../../../bin/testing/harness.js'
import type { ReasoningLevel } from '../../../schemas/models.schema.js'

const test = suite('plugin reasoning')
const kernel = makeKernel()
const slot = (id: string, familyLevel?: ReasoningLevel) => ({
  model: { requested: id, model: kernel.catalog.model(id)!, familyLevel },
})
const run = (id: string, body: Record<string, unknown>, options: object = {}, familyLevel?: ReasoningLevel) =>
  runPlugin(reasoning, options, { kernel, state: slot(id, familyLevel), body })

test('each level and each synonym is accepted', async () => {
  const cases: [string, string][] = [
    ['none', 'none'],
    ['off', 'none'],
    ['low', 'low'],
    ['minimal', 'low'],
    ['medium', 'medium'],
    ['high', 'high'],
    ['xhigh', 'high'],
    ['max', 'high'],
  ]
  for (const [asked, level] of cases) {
    const r = await run('sim-chat-thinking', { reasoning_effort: asked })
    if (level === 'none') {
      // The thinking model has no `none`: it serves the nearest level it has.
      assert.is(r.ex.state.reasoning?.served, 'low', asked)
    } else {
      assert.is(r.ex.state.reasoning?.served, level, asked)
    }
  }
})

test('any other value: 400 with the spec message, next never called', async () => {
  for (const bad of ['extreme', 'HIGH', '', 3]) {
    const r = await run('sim-vision', { reasoning_effort: bad })
    assert.is(r.error?.status, 400)
    assert.is(
      r.error?.message,
      `reasoning effort ${typeof bad === 'string' ? bad : JSON.stringify(bad)} is not one of none, low, medium or high`,
    )
    assert.is(r.nextCalled, false)
  }
})

test('omitted: the model default, without the -requested header', async () => {
  const r = await run('sim-chat-thinking', {})
  assert.is(r.ex.headers.get('x-gateway-reasoning-effort'), 'medium')
  assert.is(r.ex.headers.get('x-gateway-reasoning-effort-requested'), undefined)
  assert.is((r.ex.body as Record<string, unknown>).reasoning_effort, 'medium', 'gpt-oss style mapping')
})

test('a level the model lacks serves the nearest and says what was asked', async () => {
  // sim-vision has none and high.
  const r = await run('sim-vision', { reasoning_effort: 'medium' })
  assert.is(r.ex.headers.get('x-gateway-reasoning-effort'), 'high')
  assert.is(r.ex.headers.get('x-gateway-reasoning-effort-requested'), 'medium')
  const r2 = await run('sim-vision', { reasoning_effort: 'low' })
  assert.is(r2.ex.headers.get('x-gateway-reasoning-effort'), 'none')
  assert.is(r2.ex.headers.get('x-gateway-reasoning-effort-requested'), 'low')
  // A synonym of a level the model has is that level: nothing to report.
  const r3 = await run('sim-vision', { reasoning_effort: 'xhigh' })
  assert.is(r3.ex.headers.get('x-gateway-reasoning-effort'), 'high')
  assert.is(r3.ex.headers.get('x-gateway-reasoning-effort-requested'), undefined)
})

test("the model's declared fields reach the body, merged into what the client sent", async () => {
  const r = await run('sim-vision', { reasoning_effort: 'high', chat_template_kwargs: { add_generation_prompt: true } })
  const body = r.ex.body as Record<string, unknown>
  assert.equal(body.chat_template_kwargs, { add_generation_prompt: true, enable_thinking: true })
  assert.is(body.thinking_token_budget, 256)
  assert.not.ok('reasoning_effort' in body, 'the client field is replaced by the mapping')
  const none = await run('sim-vision', {})
  assert.equal((none.ex.body as Record<string, unknown>).chat_template_kwargs, { enable_thinking: false })
})

test('keep_effort_field sends the client field too', async () => {
  const r = await run('sim-vision', { reasoning_effort: 'off' }, { keep_effort_field: true })
  assert.is((r.ex.body as Record<string, unknown>).reasoning_effort, 'off')
})

test('a model without control: unsupported, setting ignored and removed', async () => {
  const r = await run('sim-text-plain', { reasoning_effort: 'high' })
  assert.is(r.ex.headers.get('x-gateway-reasoning-effort'), 'unsupported')
  assert.is(r.ex.headers.get('x-gateway-reasoning-effort-requested'), 'high')
  assert.not.ok('reasoning_effort' in (r.ex.body as object))
  const quiet = await run('sim-text-plain', {})
  assert.is(quiet.ex.headers.get('x-gateway-reasoning-effort'), 'unsupported')
  assert.is(quiet.ex.headers.get('x-gateway-reasoning-effort-requested'), undefined)
})

test('a family member maps the level the family chose it for', async () => {
  const r = await run('sim-chat-thinking', { reasoning_effort: 'low' }, {}, 'low')
  assert.is(r.ex.headers.get('x-gateway-reasoning-effort'), 'low')
  assert.is((r.ex.body as Record<string, unknown>).reasoning_effort, 'low')
  const instruct = await run('sim-chat-instruct', {}, {}, 'none')
  assert.is(instruct.ex.headers.get('x-gateway-reasoning-effort'), 'none')
})

test.run()
