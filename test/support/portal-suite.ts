/**
 * A suite of the portal in a real browser (Debian's chromium through playwright-core) against a
 * gateway of its own: the gateway and a page are made before the tests and closed after. Without
 * chromium the suite says it skipped, except under CI=true, where each test fails with the reason.
 */
import path from 'node:path'
import { suite, type Test } from 'uvu'
import type { Page } from 'playwright-core'
import type { TestGateway } from './gateway.js'
import { browserMissing, openBrowser, screenshotDir, type Browser } from './browser.js'

export interface PortalSuite {
  readonly test: Test
  /** `test`, or `test.skip` without chromium; a test fails with the browser's setup error. */
  readonly run: (name: string, fn: () => Promise<void>) => void
  /** Made in the suite's `before` (use them in tests, or in a `before` registered after this). */
  readonly gw: TestGateway
  readonly page: Page
  /** A full-page screenshot into test-output/portal/. */
  shot(name: string): Promise<Buffer>
}

export function portalSuite(
  title: string,
  start: () => Promise<TestGateway>,
  prepare?: (browser: Browser, gw: TestGateway) => Promise<void>,
): PortalSuite {
  const skip = browserMissing && process.env.CI !== 'true'
  const test = suite(`${title}${skip ? ' (skipped: chromium is not installed)' : ''}`)
  let setupError: unknown
  let gw: TestGateway | undefined
  let browser: Browser | undefined
  let page: Page | undefined
  test.before(async () => {
    if (skip) return
    gw = await start()
    try {
      browser = await openBrowser()
    } catch (err) {
      setupError = err
      return
    }
    await prepare?.(browser, gw)
    page = await browser.context.newPage()
    page.setDefaultTimeout(15_000)
  })
  test.after(async () => {
    await browser?.close()
    await gw?.close()
  })
  const run = skip
    ? test.skip
    : (name: string, fn: () => Promise<void>) =>
        test(name, async () => {
          if (setupError) throw setupError
          await fn()
        })
  return {
    test,
    run,
    get gw() {
      return gw!
    },
    get page() {
      return page!
    },
    shot: (name) => page!.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true }),
  }
}
