/**
 * What the Query service's media body types share: strict base64 (with data URLs), the model
 * chosen from the catalog, and the metadata with usage_metric and cost.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { decodeBase64Payload } from '../../../protocols/http/base64-payload.js'
import { checkMediaProvider, mediaModel } from '../../../protocols/query/media-model.js'
import { mediaMetadata } from '../../../protocols/query/media-metadata.js'
import type { ModelConfig } from '../../../schemas/models.schema.js'

const test = suite('protocols/query: media body types')

test('base64: plain or a data URL; anything else undefined', () => {
  assert.equal(decodeBase64Payload('aGVsbG8='), { data: Buffer.from('hello'), base64: 'aGVsbG8=' })
  assert.equal(decodeBase64Payload('data:audio/WAV;base64,aGVsbG8='), {
    data: Buffer.from('hello'),
    base64: 'aGVsbG8=',
    contentType: 'audio/wav',
  })
  assert.equal(decodeBase64Payload('data:;base64,aGVsbG8='), { data: Buffer.from('hello'), base64: 'aGVsbG8=' })
  for (const bad of ['', 'aGVsbG8', 'aGVs bG8=', 'aGVsbG8=!', 'data:audio/wav,aGVsbG8=', '===='])
    assert.is(decodeBase64Payload(bad), undefined, bad)
})

const models = [
  { id: 'chat', model_type: 'chat', backend: 'b' },
  { id: 'off', model_type: 'image', backend: 'b', enabled: false },
  { id: 'img', model_type: 'image', backend: 'b' },
] as ModelConfig[]

test('model: the one asked for, of its kind; else the first enabled of the kind', () => {
  assert.is(mediaModel(models, 'image', undefined).id, 'img')
  assert.is(mediaModel(models, 'image', 'off').id, 'off')
  assert.throws(() => mediaModel(models, 'image', 'chat'), /model_name chat is not an image generation model/)
  assert.throws(() => mediaModel(models, 'image', 'x'), /model_name x is not in the catalog/)
  assert.throws(() => mediaModel(models, 'audio_speech', undefined), /no speech model is configured/)
  checkMediaProvider(undefined)
  checkMediaProvider('gateway')
  assert.throws(() => checkMediaProvider('openai'), /model_provider openai/)
})

test('metadata: sources empty, the tokens as user_query, the cost rounded', () => {
  const m = mediaMetadata(
    {
      queryId: 'q1',
      modelId: 'img',
      used: { inputTokens: 4, outputTokens: 66 },
      prices: { input: 5e-6, output: 4e-5 },
      cost: 0.00266 + 1e-15,
    },
    { size: '256x256' },
  )
  assert.equal(
    [m.sources, m.query_id, m.model_provider, m.model_name, m.size, m.cost],
    [{}, 'q1', 'gateway', 'img', '256x256', 0.00266],
  )
  assert.equal(m.usage_metric.input_token_details, {
    user_query: 4,
    incontext_text: 0,
    system_prompt: 0,
    knowledge_base: 0,
    conversation_history: 0,
  })
  assert.is(m.usage_metric.total_token_cost, 0.00266)
})

test.run()
