/**
 * The portal's keys page and a key's own limits, in a real browser (Debian's chromium through
 * playwright-core) against a real gateway: a key made with an expiry, one model and a request
 * limit shows them in its row and keeps to them on /v1; the limits form changes and clears them;
 * a model the group may not use is refused with the gateway's message, changing nothing.
 * Under CI=true a missing chromium fails the suite.
 */
import * as assert from 'uvu/assert'
import type OpenAI from 'openai'
import type { Page } from 'playwright-core'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { keysFile } from '../support/deployment-files.js'
import { portalSuite } from '../support/portal-suite.js'

const ADMIN = 'sk-admin-portal-keys'
const KEY_ID = 'browser-limited'
let secret = ''

const portal = portalSuite('e2e portal keys page in chromium', () =>
  startTestGateway({
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
    files: { 'config/keys.yaml': keysFile({ narrow: { models: ['sim-chat-instruct', 'sim-vision'] } }, []) },
  }),
)
const { test, run, shot } = portal
let gw: TestGateway
let page: Page

// The suite's gateway and page, once its own `before` has made them.
test.before(() => {
  gw = portal.gw
  page = portal.page
})
const row = () => page.locator(`tr[data-key="${KEY_ID}"]`)
const cell = (field: string) => row().locator(`td[data-field="${field}"]`)

async function chatStatus(model: string): Promise<number> {
  try {
    await gw
      .openai(secret)
      .chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 })
    return 200
  } catch (err) {
    return (err as InstanceType<typeof OpenAI.APIError>).status ?? 0
  }
}

async function adminKey(): Promise<Record<string, unknown>> {
  const res = await fetch(`${gw.url}/admin/keys/${KEY_ID}`, { headers: { authorization: `Bearer ${ADMIN}` } })
  return (await res.json()) as Record<string, unknown>
}

run(
  'create a key with an expiry, one model and a request limit: its row shows them, the gateway keeps to them',
  async () => {
    await page.goto(`${gw.url}/portal`)
    await page.getByLabel('Admin key').fill(ADMIN)
    await page.getByLabel('Admin key').press('Enter')
    await page.getByRole('tab', { name: 'Keys' }).waitFor()
    const form = page.getByRole('form', { name: 'Create a key' })
    await form.getByLabel('Id (optional)').fill(KEY_ID)
    await form.getByLabel('Group').selectOption('narrow')
    await form.getByLabel('Expires').fill('2099-06-30T12:00')
    await form.getByLabel('Own models').fill('sim-vision')
    await form.getByLabel('Requests per minute').fill('2')
    await form.getByRole('button', { name: 'Create key' }).click()
    secret = (await page.getByTestId('secret').textContent()) ?? ''
    assert.match(secret, /^sk-/)
    await row().waitFor()
    const shown = await adminKey()
    // The browser's local time, with the zone the page gave it.
    assert.is(
      shown.expires_at,
      new Date(await page.evaluate<string>('new Date("2099-06-30T12:00").toISOString()')).toISOString(),
    )
    assert.equal([shown.models, shown.requests_per_minute, shown.expired], [['sim-vision'], 2, false])
    assert.match((await cell('expires').textContent()) ?? '', /2099/)
    assert.is(await cell('models').textContent(), 'sim-vision')
    assert.is(await cell('rpm').textContent(), '2')
    assert.is(await chatStatus('sim-chat-instruct'), 403, 'its group may, the key may not')
    assert.is(await chatStatus('sim-vision'), 200)
    assert.is(await chatStatus('sim-vision'), 429, 'two requests a minute')
    await shot('keys-limits')
  },
)

run('the limits form changes and clears them; the next request sees it', async () => {
  await page.getByRole('button', { name: `Limits of key ${KEY_ID}` }).click()
  const form = page.getByRole('form', { name: `Limits of key ${KEY_ID}` })
  assert.is(await form.getByLabel('Own models').inputValue(), 'sim-vision', 'the form starts from the key')
  assert.is(await form.getByLabel('Expires').inputValue(), '2099-06-30T12:00')
  await form.getByLabel('Own models').fill('')
  await form.getByLabel('Requests per minute').fill('')
  await form.getByLabel('Expires').fill('')
  await form.getByRole('button', { name: 'Save limits' }).click()
  await page.locator(`tr[data-key="${KEY_ID}"] td[data-field="rpm"]`, { hasText: 'no limit' }).waitFor()
  assert.is(await cell('models').textContent(), "group's")
  assert.is(await cell('expires').textContent(), 'never')
  const shown = await adminKey()
  assert.equal([shown.models, shown.requests_per_minute, shown.expires_at], [null, null, null])
  assert.is(await chatStatus('sim-chat-instruct'), 200)
})

run("a model the group may not use: the gateway's 400 in the form, and nothing changes", async () => {
  await page.getByRole('button', { name: `Limits of key ${KEY_ID}` }).click()
  const form = page.getByRole('form', { name: `Limits of key ${KEY_ID}` })
  await form.getByLabel('Own models').fill('sim-large')
  await form.getByLabel('Requests per minute').fill('7')
  await form.getByRole('button', { name: 'Save limits' }).click()
  const alert = form.getByRole('alert')
  await alert.waitFor()
  assert.match((await alert.textContent()) ?? '', /models: sim-large is not permitted to group narrow/)
  const shown = await adminKey()
  assert.equal([shown.models, shown.requests_per_minute], [null, null], 'nothing changed')
  await shot('keys-limits-refused')
})

test.run()
