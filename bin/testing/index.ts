/**
 * `sluice/testing`: what a plugin author needs to test a plugin in isolation, without a server:
 * the harness that validates options through the production ajv path and runs the plugin's
 * phases through the kernel's own chain code.
 */
export * from './harness.js'
