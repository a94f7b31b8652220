/** The isolation harness, as the repository's own tests import it; it ships as `sluice/testing` (bin/testing/). */
export * from '../bin/testing/harness.js'
