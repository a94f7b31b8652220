/**
 * The plugins' states for the life of the process (what each plugin's `open` made: a ledger, a
 * queue, a store). Made once by the composition root and handed to every load, so that a reload
 * finds what the previous pipelines used instead of opening it again; closed at shutdown, after
 * the last request, the last opened first (a state may use one opened before it).
 */
import type { Kernel } from '../contract/kernel.js'
import { describeCause, type Logger } from '../contract/log.js'
import type { JSONSchema } from 'json-schema-to-ts'
import type { AnyPlugin, PluginDefinition } from '../contract/plugin.js'

export class PluginStates {
  /** By plugin name (the registry's names are unique), in the order they were opened. */
  private readonly opened = new Map<string, Promise<unknown>>()

  /**
   * The plugin's state, opened with `kernel` the first time it is asked for (undefined for a
   * plugin without `open`). An open that fails is forgotten, so that a later load tries again.
   */
  of(plugin: AnyPlugin, kernel: Kernel): Promise<unknown> {
    if (!plugin.open) return Promise.resolve(undefined)
    let state = this.opened.get(plugin.name)
    if (!state) {
      const open = plugin.open.bind(plugin)
      state = (async () => open(kernel))()
      this.opened.set(plugin.name, state)
      state.catch(() => {
        if (this.opened.get(plugin.name) === state) this.opened.delete(plugin.name)
      })
    }
    return state
  }

  /** The state a plugin's `open` made, if it was opened (tests and tools read it). */
  get<State>(plugin: PluginDefinition<unknown, JSONSchema, State>): Promise<State> | undefined {
    return this.opened.get(plugin.name) as Promise<State> | undefined
  }

  /** Closes every state that has a `close` method, the last opened first; a failing close is logged. */
  async close(log: Logger): Promise<void> {
    const states = [...this.opened].reverse()
    this.opened.clear()
    for (const [name, opening] of states) {
      // An open that failed has nothing to close; the load it failed reported it.
      const state = await opening.catch(() => undefined)
      if (!hasClose(state)) continue
      try {
        await state.close()
      } catch (err) {
        log.error('closing a plugin state failed', { plugin: name, cause: describeCause(err) })
      }
    }
  }
}

function hasClose(value: unknown): value is { close(): unknown } {
  return typeof value === 'object' && value !== null && typeof (value as { close?: unknown }).close === 'function'
}
