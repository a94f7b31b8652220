/** The plugin registry: the one place the kernel learns of plugins, by name. */
import type { AnyPlugin } from '../contract/plugin.js'

export class PluginRegistry {
  private readonly plugins = new Map<string, AnyPlugin>()

  constructor(plugins: Iterable<AnyPlugin> = []) {
    for (const p of plugins) this.register(p)
  }

  /** Adds a plugin (a third party's too); names are unique. */
  register(plugin: AnyPlugin): this {
    if (this.plugins.has(plugin.name)) throw new Error(`plugin ${plugin.name} is registered twice`)
    this.plugins.set(plugin.name, plugin)
    return this
  }

  get(name: string): AnyPlugin | undefined {
    return this.plugins.get(name)
  }

  names(): string[] {
    return [...this.plugins.keys()].sort()
  }
}
