/**
 * The suite of one admin plugin run alone: a served kernel (the shared services opened as the
 * gateway opens them) before the tests and closed after, and `act`, which runs one action of
 * the plugin as a signed-in admin.
 */
import { suite } from 'uvu'
import type { Kernel } from '../../kernel/contract/kernel.js'
import type { PluginDefinition } from '../../kernel/contract/plugin.js'
import { makeServedKernel, runPlugin, type Run } from '../../bin/testing/harness.js'

export function adminPluginSuite<C>(name: string, plugin: PluginDefinition<C>) {
  const test = suite(`plugin ${name}`)
  // Filled in by `before`: the tests read `served.kernel` once it runs.
  const served = {} as { kernel: Kernel }
  let close: (() => Promise<void>) | undefined
  test.before(async () => {
    const opened = await makeServedKernel()
    served.kernel = opened.kernel
    close = opened.close
  })
  test.after(async () => close?.())
  const act = (action: string, scenario: { body?: unknown; params?: Record<string, string> } = {}) =>
    runPlugin(plugin, { action }, { kernel: served.kernel, state: { admin: { authenticated: true } }, ...scenario })
  const json = (run: Run) => (run.reply?.kind === 'json' ? (run.reply.body as Record<string, unknown>) : undefined)
  return { test, served, act, json }
}
