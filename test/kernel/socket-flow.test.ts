/**
 * The WebSocket's backpressure and heartbeat alone, on a stand-in socket whose queued bytes the
 * test sets: a stream waits past the high-water mark until the socket drains, a reader that
 * never drains (or lets too much pile up) is closed with 1008, and a peer that stops answering
 * pings is terminated.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { EventEmitter } from 'node:events'
import type { Duplex } from 'node:stream'
import { WebSocket } from 'ws'
import { SocketFlow, heartbeat } from '../../kernel/transports/websocket-flow/socket-flow.js'

const test = suite('kernel services: WebSocket flow control and heartbeat')

class FakeSocket extends EventEmitter {
  readyState: number = WebSocket.OPEN
  bufferedAmount = 0
  sent: string[] = []
  closed?: { code: number; reason: string }
  terminated = false
  pings = 0
  send(text: string) {
    this.sent.push(text)
    this.bufferedAmount += text.length
  }
  close(code: number, reason: string) {
    this.closed = { code, reason }
    this.readyState = WebSocket.CLOSING
  }
  terminate() {
    this.terminated = true
    this.readyState = WebSocket.CLOSED
    this.emit('close')
  }
  ping() {
    this.pings++
  }
}

class FakeRaw extends EventEmitter {
  corks = 0
  cork() {
    this.corks++
  }
  uncork() {
    this.corks--
  }
}

const limits = { highWaterBytes: 100, maxBufferedBytes: 1000, drainTimeoutMs: 200 }
const make = () => {
  const ws = new FakeSocket()
  const raw = new FakeRaw()
  return { ws, raw, flow: new SocketFlow(ws as unknown as WebSocket, raw as unknown as Duplex, limits) }
}

test('messages of one turn are corked into one write, uncorked on the next turn', async () => {
  const { raw, flow } = make()
  assert.ok(flow.send('a'))
  assert.ok(flow.send('b'))
  assert.is(raw.corks, 1)
  await new Promise((r) => setImmediate(r))
  assert.is(raw.corks, 0)
})

test('past the high-water mark a stream waits for the socket to drain', async () => {
  const { ws, raw, flow } = make()
  flow.send('x'.repeat(150))
  assert.ok(flow.over)
  let resumed = false
  const waiting = flow.drained().then((open) => (resumed = open))
  await new Promise((r) => setTimeout(r, 20))
  assert.not.ok(resumed, 'still waiting: nothing drained')
  ws.bufferedAmount = 10
  raw.emit('drain')
  await waiting
  assert.ok(resumed)
  assert.is(ws.closed, undefined)
})

test('a reader that does not drain within drain_timeout_ms is closed with 1008', async () => {
  const { ws, flow } = make()
  flow.send('x'.repeat(150))
  const drained = flow.drained()
  await new Promise((r) => setTimeout(r, 20))
  assert.is(ws.closed, undefined, 'still open: the timeout has not passed')
  assert.is(await drained, false)
  assert.equal(ws.closed, { code: 1008, reason: 'reader too slow' })
})

test('more than max_buffered_bytes queued closes the socket with 1008 and refuses the send', () => {
  const { ws, flow } = make()
  assert.ok(flow.send('x'.repeat(900)))
  assert.not.ok(flow.send('x'.repeat(200)))
  assert.equal(ws.closed, { code: 1008, reason: 'reader too slow' })
  assert.not.ok(flow.send('more'), 'nothing more once closing')
})

test('heartbeat: a peer that answers stays; one that misses a pong is terminated', async () => {
  const live = new FakeSocket()
  const stopLive = heartbeat(live as unknown as WebSocket, 20)
  const answer = setInterval(() => live.emit('pong'), 5)
  const dead = new FakeSocket()
  const stopDead = heartbeat(dead as unknown as WebSocket, 20)
  await new Promise((r) => setTimeout(r, 120))
  clearInterval(answer)
  stopLive()
  stopDead()
  assert.ok(live.pings >= 3, `${live.pings} pings`)
  assert.not.ok(live.terminated)
  assert.ok(dead.terminated, 'no pong since the first ping')
})

test.run()
