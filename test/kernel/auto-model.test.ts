import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { configDirWith, makeKernel } from '../../bin/testing/harness.js'
import { modelsWith } from '../support/deployment-files.js'
import { chooseAutoModel, queueLoadOf } from '../../domains/gateway/auto-model.js'
import type { PoolLoad } from '../../kernel/contract/load.js'

const test = suite('auto: the load of a model, from the fair queues')

/** A kernel whose fair queues report these loads. */
function withLoads(loads: PoolLoad[]) {
  const configDir = configDirWith({
    'models.yaml': modelsWith({
      backends: { small: { url: 'embedded', capacity: 2 }, big: { url: 'embedded', capacity: 16 } },
      models: [
        { id: 'on-small', model_type: 'chat', backend: 'small', served_name: 'on-small' },
        { id: 'on-big', model_type: 'chat', backend: 'big', served_name: 'on-big' },
      ],
    }),
  })
  const kernel = makeKernel({ configDir })
  kernel.load.report(() => loads)
  return kernel
}

test("running plus waiting of the model's pool, over the pool's capacity; models on a pool share it", () => {
  const k = withLoads([
    { pool: 'small', model: 'on-small', running: 2, waiting: 1 },
    { pool: 'big', model: 'on-big', running: 3, waiting: 0 },
    { pool: 'big', model: 'someone-else', running: 1, waiting: 0 },
    { pool: 'sim', model: 'sim-vision', running: 2, waiting: 0 },
  ])
  const load = queueLoadOf(k)
  assert.is(load('on-small'), 1.5)
  assert.is(load('on-big'), 0.25)
  assert.is(load('sim-vision'), 0.25, 'sim: capacity 8')
  assert.is(load('sim-chat-instruct'), 0.25, 'the same pool as sim-vision')
  assert.is(load('sim-orpheus'), 0, 'an idle pool')
})

test('auto: the least loaded capable model; among equals the order of models.yaml', () => {
  const saturated = withLoads([{ pool: 'sim', model: 'sim-chat-instruct', running: 8, waiting: 3 }])
  assert.is(
    chooseAutoModel(saturated.catalog, {}, Date.now(), queueLoadOf(saturated)).id,
    'on-small',
    'the sim pool is saturated: a model of an idle pool',
  )
  const idle = withLoads([])
  assert.is(
    chooseAutoModel(idle.catalog, {}, Date.now(), queueLoadOf(idle)).id,
    'sim-chat-instruct',
    'all idle: the first listed',
  )
  const images = withLoads([{ pool: 'sim', model: 'sim-vision', running: 8, waiting: 8 }])
  assert.is(
    chooseAutoModel(images.catalog, { images: true }, Date.now(), queueLoadOf(images)).id,
    'sim-vision',
    'busy, but the only vision model',
  )
})

test.run()
