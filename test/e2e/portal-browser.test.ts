/**
 * The operator portal in a real browser (Debian's chromium through playwright-core) against a
 * real gateway: sign in (a wrong admin key refused), create a key and read its secret once,
 * switch it off and see the gateway refuse it (403) on /v1/chat/completions and on again (200),
 * a usage chart drawn from the real records, the records downloaded as CSV and compared with
 * the records, and CSRF refused inside the page without the token. Screenshots go to
 * test-output/portal/. Under CI=true a missing chromium fails the suite.
 */
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import type OpenAI from 'openai'
import type { Page } from 'playwright-core'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { portalSuite } from '../support/portal-suite.js'

const ADMIN = 'sk-admin-browser'
const KEY_ID = 'browser-alice'
let secret = ''

const portal = portalSuite(
  'e2e portal in chromium',
  () => startTestGateway({ env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN } }),
  (browser, gw) => browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.url }),
)
const { test, run, shot } = portal
let gw: TestGateway
let page: Page

// The suite's gateway and page, once its own `before` has made them.
test.before(() => {
  gw = portal.gw
  page = portal.page
})

async function chatStatus(key: string): Promise<number> {
  try {
    await gw.openai(key).chat.completions.create({
      model: 'sim-chat-instruct',
      messages: [{ role: 'user', content: 'hello' }],
      max_tokens: 5,
    })
    return 200
  } catch (err) {
    return (err as InstanceType<typeof OpenAI.APIError>).status ?? 0
  }
}

async function adminGet<T>(p: string): Promise<T> {
  const res = await fetch(`${gw.url}/admin${p}`, { headers: { authorization: `Bearer ${ADMIN}` } })
  return (await res.json()) as T
}

/** RFC 4180 rows, as the portal writes them (quoted cells may hold commas, quotes and newlines). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++
      else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"') quoted = true
    else if (c === ',') row.push(cell), (cell = '')
    else if (c === '\n') row.push(cell), rows.push(row), (row = []), (cell = '')
    else if (c !== '\r') cell += c
  }
  return rows
}

run('a wrong admin key is refused on the sign-in form', async () => {
  await page.goto(`${gw.url}/portal`)
  await page.getByLabel('Admin key').fill('sk-wrong')
  await page.getByRole('button', { name: 'Sign in' }).click()
  assert.is(await page.getByRole('alert').textContent(), 'invalid admin key')
  assert.is(await page.getByRole('tablist').count(), 0, 'no portal without a session')
})

run('sign in with the admin key: the session is an HttpOnly cookie, nothing in web storage', async () => {
  await page.getByLabel('Admin key').fill(ADMIN)
  await page.getByLabel('Admin key').press('Enter')
  await page.getByRole('tab', { name: 'Keys' }).waitFor()
  assert.is(await page.getByRole('tab', { name: 'Keys' }).getAttribute('aria-selected'), 'true')
  const [cookie] = await page.context().cookies(gw.url + '/portal')
  assert.equal([cookie?.name, cookie?.httpOnly, cookie?.sameSite], ['sluice_portal', true, 'Strict'])
  // Page-side expressions as strings: the tests compile without the DOM library.
  const seen = await page.evaluate<{ cookie: string; local: number; session: number }>(
    '({ cookie: document.cookie, local: localStorage.length, session: sessionStorage.length })',
  )
  assert.equal(seen, { cookie: '', local: 0, session: 0 })
  await page.getByRole('row', { name: /demo/ }).first().waitFor()
})

run('create a key: its secret is shown once, copied by the button, and never again', async () => {
  await page.getByLabel('Id (optional)').fill(KEY_ID)
  await page.getByLabel('Group').selectOption('demo')
  await page.getByRole('button', { name: 'Create key' }).click()
  secret = (await page.getByTestId('secret').textContent()) ?? ''
  assert.match(secret, /^sk-/)
  await page.getByRole('button', { name: 'Copy', exact: true }).click()
  await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor()
  assert.is(await page.evaluate<string>('navigator.clipboard.readText()'), secret)
  assert.is(await chatStatus(secret), 200, 'the new key serves at once')
  await page.getByRole('button', { name: 'I have copied it' }).click()
  assert.is(await page.getByTestId('secret').count(), 0)
  await page.reload()
  await page.getByRole('row', { name: new RegExp(KEY_ID) }).waitFor()
  assert.not.ok((await page.content()).includes(secret), 'a second look does not show the secret')
  const keys = await adminGet<{ data: unknown[] }>('/keys')
  assert.not.ok(JSON.stringify(keys).includes(secret))
})

run('switch the key off: the gateway refuses it with 403 on its next request; on again: 200', async () => {
  const toggle = page.getByRole('switch', { name: `Key ${KEY_ID} enabled` })
  assert.is(await toggle.getAttribute('aria-checked'), 'true')
  await toggle.focus()
  await page.keyboard.press('Space')
  await page.locator(`[role=switch][aria-label="Key ${KEY_ID} enabled"][aria-checked=false]`).waitFor()
  assert.is(await chatStatus(secret), 403)
  await shot('keys-switched-off')
  await toggle.click()
  await page.locator(`[role=switch][aria-label="Key ${KEY_ID} enabled"][aria-checked=true]`).waitFor()
  assert.is(await chatStatus(secret), 200)
  await shot('keys')
})

run('the usage chart is drawn from the real records', async () => {
  for (let i = 0; i < 3; i++) assert.is(await chatStatus(secret), 200)
  const records = await adminGet<{ data: { key: string }[] }>(`/records?key=${KEY_ID}&from=${Date.now() - 3_600_000}`)
  const mine = records.data.length
  assert.is(mine, 5, 'two requests while the key was on, then three')
  const demoRecords = (await adminGet<{ data: unknown[] }>(`/records?key=demo&from=${Date.now() - 3_600_000}`)).data
    .length
  await page.getByRole('tab', { name: 'Usage' }).click()
  const bar = (chart: string, label: string) => page.locator(`svg[data-chart="${chart}"] g.bar[data-label="${label}"]`)
  await bar('Requests', KEY_ID).waitFor()
  assert.is(await bar('Requests', KEY_ID).getAttribute('data-value'), String(mine))
  assert.is(await bar('Requests', 'demo').count(), demoRecords === 0 ? 0 : 1)
  const tokens = Number(await bar('Tokens', KEY_ID).getAttribute('data-value'))
  const summary = await adminGet<{ data: { key: string; total_tokens: number }[] }>(
    `/usage?by=key&from=${Date.now() - 86_400_000}`,
  )
  assert.is(tokens, summary.data.find((r) => r.key === KEY_ID)!.total_tokens)
  assert.ok(tokens > 0)
  assert.is(await bar('Requests', KEY_ID).locator('rect').count(), 1, 'a drawn bar')
  // The period starts at the last hour; over the last 24 hours, all the requests fall in the last column.
  assert.is(await page.getByLabel('Period').inputValue(), 'hour')
  await page.getByLabel('Period').selectOption('day')
  // Requests over time: 24 columns whose counts add up to the period's records.
  const all = (await adminGet<{ data: unknown[] }>(`/records?from=${Date.now() - 86_400_000}`)).data.length
  const columns = await page
    .locator('svg[data-chart="Requests over time"] g.bucket')
    .evaluateAll((gs) => gs.map((g) => Number(g.getAttribute('data-value'))))
  assert.is(columns.length, 24)
  assert.is(
    columns.reduce((a, b) => a + b, 0),
    all,
  )
  assert.is(columns[23], all, 'all made within the last hour: the last column')
  // A custom period that ends before the requests: nothing drawn.
  await page.getByLabel('Period').selectOption('custom')
  await page.getByLabel('From', { exact: true }).fill('2026-01-01T00:00')
  await page.getByLabel('To', { exact: true }).fill('2026-01-02T00:00')
  await page.locator('svg[data-chart="Requests"]').getByText('no requests in this period').waitFor()
  await page.getByLabel('Period').selectOption('day')
  await bar('Requests', KEY_ID).waitFor()
  await page.getByLabel('Per', { exact: true }).selectOption('model')
  await page.locator('svg[data-chart="Requests"] g.bar[data-label="sim-chat-instruct"]').waitFor()
  await shot('usage')
})

run('the usage records download as CSV, matching the records', async () => {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export records (CSV)' }).click(),
  ])
  assert.is(download.suggestedFilename(), 'usage-records.csv')
  const file = await download.path()
  const [header, ...rows] = parseCsv(fs.readFileSync(file, 'utf8'))
  assert.equal(header!.slice(0, 7), ['at', 'request_id', 'parent_request_id', 'key', 'group', 'route', 'model'])
  const records = await adminGet<{ data: { request_id: string; key: string; prompt_tokens: number }[] }>(
    `/records?from=${Date.now() - 86_400_000}`,
  )
  const col = (name: string) => header!.indexOf(name)
  const fromCsv = new Map(rows.map((r) => [r[col('request_id')]!, r]))
  assert.is(rows.length, records.data.length)
  for (const r of records.data) {
    const row = fromCsv.get(r.request_id)
    assert.ok(row, `record ${r.request_id} is in the CSV`)
    assert.is(row![col('key')], r.key)
    assert.is(Number(row![col('prompt_tokens')]), r.prompt_tokens)
  }
  assert.is(rows.filter((r) => r[col('key')] === KEY_ID).length, 5)
})

run('inside the page, a state-changing call without the CSRF token is refused with 403', async () => {
  const res = await page.evaluate(async (id) => {
    const r = await fetch(`/portal/api/keys/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: false }),
    })
    return { status: r.status, body: await r.json() }
  }, KEY_ID)
  assert.equal(res, {
    status: 403,
    body: {
      error: {
        message: 'missing or invalid CSRF token: send the x-csrf-token header returned at sign-in',
        type: 'gateway_error',
      },
    },
  })
  assert.is(await chatStatus(secret), 200, 'the key is still on')
})

run("the models tab shows the catalog and each backend's queue; the tabs work from the keyboard", async () => {
  await page.getByRole('tab', { name: 'Spend' }).focus()
  await page.keyboard.press('ArrowRight')
  assert.is(await page.getByRole('tab', { name: 'Models' }).getAttribute('aria-selected'), 'true')
  await page
    .getByRole('row', { name: /sim-chat-instruct/ })
    .first()
    .waitFor()
  assert.ok((await page.locator('tr[data-backend]').count()) > 0)
  await shot('models')
  await page.keyboard.press('ArrowRight')
  await page.getByRole('heading', { name: 'Knowledge base' }).waitFor()
  await page.getByRole('tab', { name: 'Groups' }).click()
  await page.getByRole('row', { name: /demo/ }).first().waitFor()
  await shot('groups')
})

run('rotate asks first; accepted, the new secret is shown once and the old one stops at once', async () => {
  await page.getByRole('tab', { name: 'Keys' }).click()
  page.once('dialog', (d) => void d.dismiss())
  await page.getByRole('button', { name: `Rotate key ${KEY_ID}` }).click()
  assert.is(await page.getByTestId('secret').count(), 0, 'dismissed: nothing rotated')
  assert.is(await chatStatus(secret), 200)
  let asked = ''
  page.once('dialog', (d) => {
    asked = d.message()
    void d.accept()
  })
  await page.getByRole('button', { name: `Rotate key ${KEY_ID}` }).click()
  const rotated = (await page.getByTestId('secret').textContent()) ?? ''
  assert.match(asked, /Rotate the secret of key browser-alice/)
  assert.ok(rotated.startsWith('sk-') && rotated !== secret)
  assert.is(await chatStatus(secret), 401, 'the old secret is refused')
  assert.is(await chatStatus(rotated), 200)
  await page.getByRole('button', { name: 'I have copied it' }).click()
  secret = rotated
})

run("a group's tokens per minute and weight are edited in the groups tab", async () => {
  await page.getByRole('tab', { name: 'Groups' }).click()
  await page.getByRole('button', { name: 'Edit group demo' }).click()
  const form = page.getByRole('form', { name: 'Edit group demo' })
  await form.getByLabel('Tokens per minute').fill('500000')
  await form.getByLabel('Fairness weight').fill('2')
  await form.getByRole('button', { name: 'Save group' }).click()
  await page.getByRole('row', { name: /demo/ }).filter({ hasText: '500,000' }).waitFor()
  const group = await adminGet<{ tokens_per_minute: number; weight: number; models: string[] }>('/groups/demo')
  assert.equal([group.tokens_per_minute, group.weight, group.models], [500000, 2, ['*']])
  assert.is(await chatStatus(secret), 200)
})

run('the knowledge base tab: a file uploaded into a collection, with its chunks counted', async () => {
  await page.getByRole('tab', { name: 'Knowledge base' }).click()
  await page.getByLabel('Project').locator('option[value="demo"]').waitFor({ state: 'attached' })
  assert.is(await page.getByLabel('Project').inputValue(), 'demo')
  await page.getByLabel('New collection').fill('portal-docs')
  await page.getByRole('button', { name: 'Create collection' }).click()
  await page.getByRole('heading', { name: 'Documents of portal-docs' }).waitFor({ timeout: 60_000 })
  await page.getByLabel(/^File/).setInputFiles({
    name: 'roses.md',
    mimeType: 'text/markdown',
    buffer: Buffer.from('# Roses\n\nPrune roses in late winter, above an outward-facing bud.\n'),
  })
  await page.getByRole('button', { name: 'Upload' }).click()
  await page.getByRole('status').filter({ hasText: 'roses.md added.' }).waitFor({ timeout: 60_000 })
  const row = page.getByRole('row', { name: /roses\.md/ })
  await row.waitFor()
  const docs = (await (
    await fetch(`${gw.url}/knowledge/v1/projects/demo/collections/portal-docs/documents`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    })
  ).json()) as { data: { source_name: string; chunks: number }[] }
  const doc = docs.data.find((d) => d.source_name === 'roses.md')!
  assert.ok(doc.chunks >= 1)
  assert.is(await row.locator('td').first().textContent(), String(doc.chunks))
  const collection = page.getByRole('row', { name: /^portal-docs/ })
  await collection
    .filter({ has: page.locator('td', { hasText: /^1$/ }) })
    .first()
    .waitFor()
  assert.is(await collection.locator('td').nth(1).textContent(), String(doc.chunks), 'the collection counts the chunks')
  await shot('knowledge')
})

run('delete asks first; accepted, the key is gone and its secret refused', async () => {
  await page.getByRole('tab', { name: 'Keys' }).click()
  page.once('dialog', (d) => void d.dismiss())
  await page.getByRole('button', { name: `Delete key ${KEY_ID}` }).click()
  assert.is(await chatStatus(secret), 200, 'dismissed: nothing deleted')
  page.once('dialog', (d) => void d.accept())
  await page.getByRole('button', { name: `Delete key ${KEY_ID}` }).click()
  await page.locator(`tr[data-key="${KEY_ID}"]`).waitFor({ state: 'detached' })
  assert.is(await chatStatus(secret), 401)
})

run('sign out: the cookie is gone and the API answers 401', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByLabel('Admin key').waitFor()
  const status = await page.evaluate(async () => (await fetch('/portal/api/keys')).status)
  assert.is(status, 401)
})

test.run()
