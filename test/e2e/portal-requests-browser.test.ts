/**
 * The portal's Requests, Errors and Spend views in a real browser (Debian's chromium through
 * playwright-core) against a real gateway, with real traffic through the openai SDK: the
 * requests filtered by key and status and paged; a verdicts request opened shows its internal
 * calls (the records whose parent is its id); the Errors view lists the failed request (a
 * stream cut by the backend: 502) and says why refused keys are not there; a key spent past
 * 80 % of its day budget is flagged; a table searched; the period kept across tabs; no
 * horizontal overflow at 390 px; the dark theme follows the system. Screenshots go to
 * test-output/portal/. Under CI=true a missing chromium fails the suite.
 */
import * as assert from 'uvu/assert'
import type { Page } from 'playwright-core'
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/gateway.js'
import { keysFile } from '../support/deployment-files.js'
import { portalSuite } from '../support/portal-suite.js'

const ADMIN = 'sk-admin-portal-requests'
const ALPHA = 'sk-alpha-portal-requests'
const SPENDER = 'sk-spender-portal-requests'
let verdictsId = ''
let cutId = ''
let chatId = ''

const portal = portalSuite('e2e portal requests, errors and spend in chromium', () =>
  startTestGateway({
    env: { SLUICE_DEMO_KEY: TEST_KEY, SLUICE_ADMIN_KEY: ADMIN },
    files: {
      'config/keys.yaml': keysFile({ team: { models: ['*'], budget: { amount: 1000, term: 'month' } } }, [
        { id: 'alpha', group: 'team', secret: ALPHA },
        { id: 'spender', group: 'demo', secret: SPENDER, budget: { amount: 1, term: 'day' } },
      ]),
    },
  }),
)
const { test, run, shot } = portal
let gw: TestGateway
let page: Page

interface Rec {
  request_id: string
  parent_request_id: string | null
  key: string
  status: number
  charged: number
}

// The suite's gateway and page, once its own `before` has made them.
test.before(() => {
  gw = portal.gw
  page = portal.page
})

async function adminGet<T>(p: string): Promise<T> {
  const res = await fetch(`${gw.url}/admin${p}`, { headers: { authorization: `Bearer ${ADMIN}` } })
  assert.is(res.status, 200, p)
  return (await res.json()) as T
}

const chat = (secret: string) =>
  gw.openai(secret).chat.completions.create({
    model: 'sim-chat-instruct',
    messages: [{ role: 'user', content: 'hello' }],
    max_tokens: 5,
  })

const pagerInfo = (table: string) =>
  page.locator(`.table-box:has(table[data-table="${table}"]) [data-testid=pager-info]`)
const requestRows = () => page.locator('table[data-table="requests"] tr[data-request]')

run('traffic: chats of two keys, a cut stream (502) and a verdicts request with two questions', async () => {
  chatId = (await chat(ALPHA).withResponse()).response.headers.get('x-gateway-request-id') ?? ''
  for (let i = 0; i < 11; i++) await chat(ALPHA)
  for (let i = 0; i < 2; i++) await chat(TEST_KEY)
  // ignore_eos (vLLM's): a reply of the full 40 tokens, so the cut after 3 chunks always comes first.
  const cutBody = {
    model: 'sim-chat-instruct',
    messages: [{ role: 'user' as const, content: 'a story' }],
    stream: true as const,
    max_tokens: 40,
    ignore_eos: true,
  }
  const cut = await gw
    .openai(ALPHA)
    .chat.completions.create(cutBody, { headers: { 'x-sim-cut-after': '3' } })
    .withResponse()
  try {
    for await (const _ of cut.data) void _
  } catch {
    // The stream was cut: expected.
  }
  cutId = cut.response.headers.get('x-gateway-request-id') ?? ''
  const verdicts = await gw
    .openai(ALPHA)
    .post('/verdicts', {
      body: {
        model: 'sim-chat-instruct',
        state: 'The sky is blue and the grass is green.',
        questions: {
          sky: { type: 'boolean', instructions: 'Is the sky blue?' },
          grass: { type: 'boolean', instructions: 'Is the grass green?' },
        },
      },
    })
    .withResponse()
  verdictsId = verdicts.response.headers.get('x-gateway-request-id') ?? ''
  assert.ok(cutId && verdictsId && chatId)
  const calls = (await adminGet<{ data: Rec[] }>(`/records?request_id=${verdictsId}`)).data.filter(
    (r) => r.parent_request_id === verdictsId,
  )
  assert.ok(calls.length >= 2, `the verdicts request made internal calls (${calls.length})`)
  const cutRecord = (await adminGet<{ data: Rec[] }>(`/records?request_id=${cutId}`)).data[0]
  assert.is(cutRecord?.status, 502)
})

run('sign in; the Requests view filters by key and pages in the browser', async () => {
  await page.goto(`${gw.url}/portal`)
  await page.getByLabel('Admin key').fill(ADMIN)
  await page.getByLabel('Admin key').press('Enter')
  await page.getByRole('tab', { name: 'Requests' }).click()
  await requestRows().first().waitFor()
  const from = Date.now() - 3_600_000
  const alpha = (await adminGet<{ data: Rec[] }>(`/records?key=alpha&from=${from}`)).data.filter(
    (r) => r.parent_request_id === null,
  )
  assert.is(alpha.length, 14, '12 chats, the cut stream and the verdicts request')
  await page.getByLabel('Key', { exact: true }).fill('alpha')
  await page.getByLabel('Key', { exact: true }).press('Enter')
  await pagerInfo('requests')
    .filter({ hasText: `of ${alpha.length}` })
    .waitFor()
  await page.getByLabel('Rows per page').selectOption('10')
  assert.is((await pagerInfo('requests').textContent())?.trim(), `1–10 of ${alpha.length}`)
  assert.is(await requestRows().count(), 10)
  const keys = await page.locator('table[data-table="requests"] td[data-field="key"]').allTextContents()
  assert.equal([...new Set(keys)], ['alpha'], 'only the chosen key')
  await page.getByRole('button', { name: 'Next page of Requests' }).click()
  assert.is((await pagerInfo('requests').textContent())?.trim(), `11–${alpha.length} of ${alpha.length}`)
  assert.is(await requestRows().count(), alpha.length - 10)
  assert.ok(await page.getByRole('button', { name: 'Next page of Requests' }).isDisabled(), 'the last page')
  await shot('requests')
})

run('the status filter: 5xx shows the cut stream only; 2xx all but it', async () => {
  await page.getByLabel('Status', { exact: true }).selectOption('5xx')
  await pagerInfo('requests').filter({ hasText: '1–1 of 1' }).waitFor()
  assert.is(await requestRows().getAttribute('data-request'), cutId)
  assert.match((await requestRows().locator('td[data-field="status"]').textContent()) ?? '', /^502\b/)
  await page.getByLabel('Status', { exact: true }).selectOption('2xx')
  await pagerInfo('requests').filter({ hasText: 'of 13' }).waitFor()
  assert.is(await page.locator(`tr[data-request="${cutId}"]`).count(), 0)
})

run("opening a verdicts request shows its internal calls, as the records' parent ids say", async () => {
  await page.getByLabel('Status', { exact: true }).selectOption('')
  await page.getByLabel('Search Requests').fill(verdictsId)
  await pagerInfo('requests').filter({ hasText: '1–1 of 1' }).waitFor()
  const button = page.getByRole('button', { name: `Internal calls of request ${verdictsId}` })
  assert.is(await button.getAttribute('aria-expanded'), 'false')
  await button.click()
  const detail = page.locator(`tr[data-detail="${verdictsId}"]`)
  await detail.locator('tr[data-call]').first().waitFor()
  const calls = (await adminGet<{ data: Rec[] }>(`/records?request_id=${verdictsId}`)).data.filter(
    (r) => r.parent_request_id === verdictsId,
  )
  const shown = await detail
    .locator('tr[data-call]')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-call')))
  assert.equal(shown.sort(), calls.map((c) => c.request_id).sort())
  assert.ok(shown.length >= 2)
  await shot('requests-internal-calls')
  // A chat has none: it says so.
  await page.getByLabel('Search Requests').fill('')
  await page.getByLabel('Search Requests').fill(chatId)
  await page.getByRole('button', { name: `Internal calls of request ${chatId}` }).click()
  await page.locator(`tr[data-detail="${chatId}"]`).getByText('No internal calls').waitFor()
})

run('the Errors view lists the failed request only, and says where refused keys go', async () => {
  await page.getByRole('tab', { name: 'Errors' }).click()
  await page.locator('table[data-table="errors"] tr[data-request]').first().waitFor()
  const ids = await page
    .locator('table[data-table="errors"] tr[data-request]')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-request')))
  assert.equal(ids, [cutId])
  assert.match((await page.getByTestId('errors-help').textContent()) ?? '', /401.*no usage record.*access log/)
  await shot('errors')
})

run('spend against budget: a key past 80 % of its day budget is flagged; the group under it is not', async () => {
  await chat(SPENDER)
  const dayStart = new Date().setUTCHours(0, 0, 0, 0)
  const usage = await adminGet<{ data: { key: string; charged: number }[] }>(`/usage?by=key&from=${dayStart}`)
  const charged = usage.data.find((r) => r.key === 'spender')!.charged
  assert.ok(charged > 0)
  const amount = Number((charged / 0.9).toPrecision(6))
  const res = await fetch(`${gw.url}/admin/keys/spender`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ budget: { amount, term: 'day' } }),
  })
  assert.is(res.status, 200)
  await page.getByRole('tab', { name: 'Spend' }).click()
  const row = page.locator('tr[data-spend="key:spender"]')
  await row.waitFor()
  assert.is(await row.getByTestId('spend-warning').textContent(), 'Near the limit')
  const meter = row.getByRole('meter', { name: 'Spend of key spender' })
  assert.is(Number(await meter.getAttribute('value')), charged)
  assert.is(Number(await meter.getAttribute('max')), amount)
  assert.is(await row.locator('.pct').textContent(), '90 %')
  assert.match((await page.locator('p.warning').textContent()) ?? '', /key spender/)
  const team = page.locator('tr[data-spend="group:team"]')
  assert.is(await team.getByTestId('spend-warning').count(), 0, 'team spent little of its 1000')
  const teamSpent = (
    await adminGet<{ data: { group: string; charged: number }[] }>(
      `/usage?by=group&from=${Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1)}`,
    )
  ).data.find((r) => r.group === 'team')!.charged
  assert.is(Number(await team.getByRole('meter').getAttribute('value')), teamSpent)
  assert.ok(teamSpent > 0)
  await shot('spend')
})

run('search on a table: the keys table narrowed to one row, and back', async () => {
  await page.getByRole('tab', { name: 'Keys' }).click()
  await page.locator('tr[data-key="alpha"]').waitFor()
  const all = await page.locator('tr[data-key]').count()
  assert.is(all, 3)
  await page.getByLabel('Search API keys').fill('spend')
  await page.locator('tr[data-key="alpha"]').waitFor({ state: 'detached' })
  assert.equal(await page.locator('tr[data-key]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key'))), [
    'spender',
  ])
  assert.is((await pagerInfo('api-keys').textContent())?.trim(), '1–1 of 1 (of 3)')
  await page.getByLabel('Search API keys').fill('')
  await page.locator('tr[data-key="alpha"]').waitFor()
})

run('the period is kept across tabs (default: the last hour)', async () => {
  await page.getByRole('tab', { name: 'Usage' }).click()
  assert.is(await page.getByLabel('Period').inputValue(), 'hour')
  await page.getByLabel('Period').selectOption('week')
  await page.getByRole('tab', { name: 'Requests' }).click()
  assert.is(await page.getByLabel('Period').inputValue(), 'week')
  await page.getByRole('tab', { name: 'Keys' }).click()
  await page.getByRole('tab', { name: 'Usage' }).click()
  assert.is(await page.getByLabel('Period').inputValue(), 'week')
  // The time chart: a y axis with ticks from 0, and time labels along x.
  await page.locator('svg[data-chart="Requests over time"] g.bucket').first().waitFor({ state: 'attached' })
  const yTicks = await page.locator('svg[data-chart="Requests over time"] g.tick.y text').allTextContents()
  assert.ok(yTicks.length >= 3 && yTicks[0] === '0', `y ticks ${yTicks.join(', ')}`)
  assert.ok((await page.locator('svg[data-chart="Requests over time"] g.tick.x').count()) >= 4)
  await page.getByLabel('Period').selectOption('hour')
  await shot('usage-1280')
})

run('at 390 px wide no tab overflows the page sideways; tables scroll inside their box', async () => {
  await page.setViewportSize({ width: 390, height: 844 })
  for (const tab of ['Keys', 'Groups', 'Usage', 'Requests', 'Errors', 'Spend', 'Models', 'Knowledge base']) {
    await page.getByRole('tab', { name: tab, exact: true }).click()
    await page.locator('main table').first().waitFor()
    const width = await page.evaluate<number>('document.documentElement.scrollWidth')
    assert.ok(width <= 390, `${tab}: the page is ${width} px wide`)
    if (tab === 'Requests' || tab === 'Usage' || tab === 'Spend') await shot(`${tab.toLowerCase()}-390`)
  }
  await page.setViewportSize({ width: 1280, height: 860 })
})

run('the dark theme follows the system', async () => {
  const background = () => page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor')
  await page.emulateMedia({ colorScheme: 'light' })
  assert.is(await background(), 'rgb(246, 247, 249)')
  await page.emulateMedia({ colorScheme: 'dark' })
  assert.is(await background(), 'rgb(15, 20, 25)')
  await page.getByRole('tab', { name: 'Usage' }).click()
  await page.locator('svg[data-chart="Requests over time"]').waitFor()
  await shot('usage-dark')
  await page.emulateMedia({ colorScheme: 'light' })
})

test.run()
