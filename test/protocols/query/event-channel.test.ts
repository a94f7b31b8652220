import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { EventChannel } from '../../../protocols/query/event-channel.js'

const test = suite('protocols/query: the event channel')

test('a push resolves only once the reader took the event; events keep their order', async () => {
  const channel = new EventChannel<number>()
  let taken = false
  const pushed = channel.push(1).then(() => (taken = true))
  await new Promise((r) => setImmediate(r))
  assert.not.ok(taken, 'nobody read it yet')
  const it = channel[Symbol.asyncIterator]()
  assert.equal(await it.next(), { value: 1, done: false })
  await pushed
  assert.ok(taken)
  void channel.push(2)
  void channel.push(3)
  channel.end()
  assert.equal(await it.next(), { value: 2, done: false })
  assert.equal(await it.next(), { value: 3, done: false })
  assert.equal(await it.next(), { value: undefined, done: true })
})

test('an error ends the reading after the queued events', async () => {
  const channel = new EventChannel<string>()
  void channel.push('a')
  channel.end(new Error('cut'))
  const seen: string[] = []
  try {
    for await (const e of channel) seen.push(e)
    assert.unreachable()
  } catch (err) {
    assert.is((err as Error).message, 'cut')
  }
  assert.equal(seen, ['a'])
})

test('a reader that leaves refuses the pending pushes, and later ones', async () => {
  const channel = new EventChannel<string>()
  const first = channel.push('a')
  const second = channel.push('b')
  for await (const e of channel) {
    assert.is(e, 'a')
    break
  }
  await first
  await second.then(
    () => assert.unreachable('b was never read'),
    (err: Error) => assert.match(err.message, /reader has gone/),
  )
  await channel.push('c').then(
    () => assert.unreachable(),
    (err: Error) => assert.match(err.message, /ended/),
  )
})

test.run()
