/**
 * When traces are exported, and the OTEL_* settings Sluice checks itself at start: an endpoint
 * turns them on, OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none off; a protocol other than
 * OTLP/HTTP, an exporter other than otlp or an endpoint that is not an http(s) URL stops the
 * start with the variable and the reason.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { tracesWanted } from '../../bin/traces-wanted.js'
import { openOtelTraces } from '../../bin/otel-traces.js'
import { createLogger } from '../../kernel/contract/log.js'

const test = suite('bin: OpenTelemetry settings')
const ENDPOINT = 'http://127.0.0.1:4318'
const log = createLogger({ level: 'error', sink: { write: () => undefined } })

test('an OTLP endpoint turns traces on; OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none turn them off', () => {
  assert.not.ok(tracesWanted({}))
  assert.not.ok(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }))
  assert.ok(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }))
  assert.ok(tracesWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` }))
  assert.not.ok(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'TRUE' }))
  assert.ok(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'false' }))
  assert.not.ok(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }))
  assert.ok(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'otlp' }))
})

test('what Sluice cannot do stops the start, naming the variable', async () => {
  for (const [env, message] of [
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported/],
    [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/xml' }, /OTEL_EXPORTER_OTLP_PROTOCOL=http\/xml is not supported/],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, /OTEL_TRACES_EXPORTER=zipkin is not supported/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318" is not an http/],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' }, /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="not a url"/],
  ] as const) {
    const err = await openOtelTraces({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, ...env }, log).then(
      (t) => t.close(),
      (e: unknown) => e,
    )
    assert.instance(err, Error, JSON.stringify(env))
    assert.match((err as Error).message, message)
  }
})

test('http/json and http/protobuf are accepted', async () => {
  for (const protocol of ['http/json', 'http/protobuf']) {
    const traces = await openOtelTraces(
      { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: protocol },
      log,
    )
    await traces.close()
  }
})

test.run()
