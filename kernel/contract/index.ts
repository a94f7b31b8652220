/**
 * The contract: all that plugins, domains, protocols and third-party packages may import of the
 * kernel (`sluice/contract`). Everything here is a type, an error, or a pure helper; the kernel's
 * implementations live in kernel/run, kernel/transports and kernel/services, out of reach.
 */
export * from './plugin.js'
export * from './exchange.js'
export * from './reply.js'
export * from './relayed-json.js'
export * from './errors.js'
export * from './usage.js'
export * from './kernel.js'
export * from './log.js'
export * from './ajv.js'
export * from './paths.js'
export * from './catalog.js'
export * from './key-store.js'
export * from './backends.js'
export * from './upstream-call.js'
export * from './prices.js'
export * from './records.js'
export * from './metrics.js'
export * from './load.js'
export * from './redis.js'
export * from './stores.js'
export * from './pg-transaction.js'
export * from './with-timeout.js'
export * from './domain.js'
