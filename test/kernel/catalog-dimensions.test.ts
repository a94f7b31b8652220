import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { configDirWith, makeKernel } from '../../bin/testing/harness.js'
import { modelsWith } from '../support/deployment-files.js'

const test = suite('catalog: dimensions are for embedding models')
const load = (models: object[]) => () =>
  makeKernel({ configDir: configDirWith({ 'models.yaml': modelsWith({ models }) }) })

test('dimensions or supports_dimensions on another type of model: refused at load', () => {
  assert.throws(
    load([{ id: 'c', model_type: 'chat', backend: 'sim', dimensions: 384 }]),
    /model c: dimensions and supports_dimensions are for embedding models/,
  )
  assert.throws(
    load([{ id: 'c', model_type: 'chat', backend: 'sim', supports_dimensions: true }]),
    /model c: dimensions and supports_dimensions are for embedding models/,
  )
})

test('on an embedding model they load; supports_dimensions defaults to false', () => {
  const k = load([{ id: 'e', model_type: 'embedding', backend: 'sim', dimensions: 768 }])()
  assert.equal([k.catalog.model('e')?.dimensions, k.catalog.model('e')?.supports_dimensions], [768, false])
  assert.equal(
    [k.catalog.model('sim-embed')?.dimensions, k.catalog.model('sim-embed')?.supports_dimensions],
    [384, true],
  )
})

test.run()
