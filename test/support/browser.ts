/**
 * Debian's chromium driven by playwright-core, for the portal's browser tests. A fresh profile
 * per run; no network beyond 127.0.0.1 (background networking, updates and sync are off). When
 * /usr/bin/chromium is missing the tests skip, except under CI=true, where they fail: CI
 * installs chromium (.ci/run), so a missing browser there is a broken setup, not a reason to pass.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'
import { repoRoot } from '../../kernel/contract/paths.js'

export const CHROMIUM = process.env.SLUICE_CHROMIUM ?? '/usr/bin/chromium'

export const browserMissing = !fs.existsSync(CHROMIUM)

/** Where a test run's screenshots go (gitignored). */
export const screenshotDir = path.join(repoRoot, 'test-output', 'portal')

export interface Browser {
  context: BrowserContext
  close(): Promise<void>
}

export async function openBrowser(): Promise<Browser> {
  if (browserMissing)
    throw new Error(`chromium is not installed at ${CHROMIUM} (apt-get install chromium; .ci/run does it)`)
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    acceptDownloads: true,
    viewport: { width: 1280, height: 860 },
  })
  fs.mkdirSync(screenshotDir, { recursive: true })
  return {
    context,
    async close() {
      await context.close()
      fs.rmSync(profile, { recursive: true, force: true })
    },
  }
}
