/**
 * The error table of the OpenAPI document (plugins/openapi/step-errors.ts) against the plugins
 * it describes: every built-in plugin has an entry, so a new plugin cannot leave its routes'
 * statuses out unnoticed; each `name:action` entry names an action (or view) the plugin has; and
 * each entry holds error statuses with a reason.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { builtinPlugins } from '../../../plugins/registry.js'
import { STEP_ERRORS, stepErrors } from '../../../plugins/openapi/step-errors.js'

const test = suite('plugin openapi: the error table')

test('every built-in plugin has an entry', () => {
  const missing = builtinPlugins.map((p) => p.name).filter((name) => !(name in STEP_ERRORS))
  assert.equal(missing, [])
})

test('each name:action entry names a plugin and one of its actions (or views)', () => {
  const byName = new Map(builtinPlugins.map((p) => [p.name, p]))
  for (const key of Object.keys(STEP_ERRORS).filter((k) => k.includes(':'))) {
    const [name, action] = key.split(':') as [string, string]
    const plugin = byName.get(name)
    assert.ok(plugin, `${key}: no plugin ${name}`)
    const props = (plugin.config as { properties?: Record<string, { enum?: readonly string[] }> }).properties ?? {}
    const choices = [...(props.action?.enum ?? []), ...(props.view?.enum ?? [])]
    assert.ok(choices.includes(action), `${key}: ${name} has no action ${action} (${choices.join(', ')})`)
  }
})

test('entries hold error statuses, each with a reason', () => {
  for (const [key, entry] of Object.entries(STEP_ERRORS))
    for (const [status, reason] of Object.entries(entry)) {
      assert.ok(/^[45]\d\d$/.test(status), `${key}: ${status} is not an error status`)
      assert.ok(reason.trim().length > 5, `${key} ${status}: no reason`)
    }
})

test("a step's action entry replaces the plugin's; an unknown plugin has none", () => {
  assert.equal(Object.keys(stepErrors('admin-keys:create')).sort(), ['400', '409', '503'])
  assert.equal(stepErrors('admin-keys:list'), {})
  assert.equal(stepErrors('auth'), STEP_ERRORS.auth)
  assert.equal(stepErrors('model-catalog:list'), {})
  assert.equal(stepErrors('somebody-elses-plugin'), {})
})

test.run()
