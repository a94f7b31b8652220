/**
 * `sluice/testing`: what a plugin author needs to test a plugin in isolation, without a server:
 * `runPlugin` and `setupPlugin` (options validated through the production ajv path, phases run
 * through the kernel's own chain code), kernels built from real config files (`makeKernel`,
 * `makeServedKernel`, `configDirWith`), what a plugin's `open` made (`stateOf`,
 * `closePluginStates`), and a model server's report (`answeredWith`). Published with its
 * declarations (package.json `exports`); docs/plugin-author-guide.md shows it in use.
 */
export * from './harness.js'
