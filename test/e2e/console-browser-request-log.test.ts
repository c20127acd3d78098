import { expect } from 'chai';
import { buildConsole } from '../../ops/console-build.js';
import { chromiumInstalled, CHROMIUM_MISSING, openConsoleBrowser, signInToConsole, type ConsoleBrowser } from '../support/console-browser.js';
import { createScratchDatabase } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness.js';
import { seedRequests } from '../support/seeded-requests.js';
import { TEST_ADMIN_TOKEN } from '../support/test-gateway.js';
import { postText, textRequest } from '../support/text-format-client.js';

const SEEDED = 100_000;
/** The bound for one page of the request log, from the click to the new rows painted. */
const PAGE_BUDGET_MS = 200;

/**
 * The request log in headless Chromium, on a database of its own: a real request through the gateway, and
 * 100,000 older ones seeded into the read model (test/support/seeded-requests.ts). The request is found by
 * its id, with its reserve and settle events and their amounts; the log pages through the 100,000 by
 * keyset, each page timed and written to the run's output.
 */
describe('console in a real browser: request log', function () {
  this.timeout(180_000);
  let harness: GatewayHarness;
  let browser: ConsoleBrowser;
  let dropDatabase: (() => Promise<void>) | undefined;
  let orgId: string;
  let keyId: string;
  let requestId: string;
  const page = () => browser.page;
  const rows = () => page().getByTestId('request-log').locator('tbody tr');
  const firstRowId = () => rows().first().getAttribute('data-request-id');
  const report = (line: string) => process.stdout.write(`      ${line}\n`);

  before(async function () {
    if (!chromiumInstalled()) {
      process.stdout.write(`      skipped: ${CHROMIUM_MISSING}\n`);
      this.skip();
    }
    await buildConsole();
    const scratch = await createScratchDatabase('request_log');
    dropDatabase = scratch.drop;
    harness = await startGatewayHarness({ DATABASE_URL: scratch.url });
    const customer = await harness.admin.organizationWithKey({ credits: '5', organization: { name: 'Log Org' }, key: { name: 'log key' } });
    ({ orgId, keyId } = customer);
    harness.openai.enqueue({ usage: { inputTokens: 12, outputTokens: 7 } });
    const answer = await postText(harness.gateway.url, 'chat', customer.secret, textRequest('chat', 'openai/gpt-4o-mini', { stream: false, maxTokens: 100 }));
    expect(answer.status).to.equal(200);
    requestId = answer.headers.get('x-request-id')!;
    await eventually(async () => expect((await harness.admin.ok('GET', `/requests/${requestId}`)).status).to.equal('settled'));
    const started = performance.now();
    await seedRequests(scratch.url, { orgId, keyIds: [keyId, 'key_seeded1', 'key_seeded2', 'key_seeded3'], newest: new Date(Date.now() - 60_000), count: SEEDED });
    report(`seeded ${SEEDED.toLocaleString('en-US')} requests into the read model in ${Math.round(performance.now() - started)} ms (one insert … select generate_series)`);
    browser = await openConsoleBrowser();
    await signInToConsole(browser, harness.gateway.url, TEST_ADMIN_TOKEN);
  });
  after(async () => {
    await browser?.close();
    try {
      await harness?.checkLedger();
    } finally {
      await harness?.close();
      await dropDatabase?.();
    }
  });

  it('finds a request by its id and shows its reserve and settle events with their amounts', async () => {
    await page().getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Requests' }).click();
    await rows().first().waitFor();
    await page().getByLabel('Request id').fill(requestId);
    await page().getByRole('button', { name: 'Find' }).click();
    await page().waitForURL(new RegExp(`#/requests\\?request=${requestId}$`));
    const events = page().getByTestId('request-events');
    await events.locator('tr[data-event="ReservationSettled"]').waitFor();
    expect(await firstRowId()).to.equal(requestId);
    expect(await rows().first().getAttribute('aria-current')).to.equal('true');
    expect(await rows().first().textContent()).to.include('Log Org').and.include('log key').and.include('chat').and.include('settled').and.include('12 in, 7 out').and.include('$0.000006');
    const reserve = await events.locator('tr[data-event="FundsReserved"]').textContent();
    // 11 tokens of 'hello' (with the tokenizer's margin) × $0.15 + 100 × $0.60 per million
    expect(reserve).to.include(`account-${orgId}@1`).and.include('reserved $0.00006165').and.include(`caused by ${requestId}`);
    const settle = await events.locator('tr[data-event="ReservationSettled"]').textContent();
    // 12 × $0.15 + 7 × $0.60 per million: $0.000006, within the reserve
    expect(settle).to.include(`account-${orgId}@2`).and.include('charged $0.000006, overrun $0.00').and.include('12 in, 0 cached, 7 out, 0 reasoning');
    await browser.screenshot('13-request-events');
  });

  it('opens the events of a row on a click', async () => {
    const second = rows().nth(1);
    const id = await second.getAttribute('data-request-id');
    await second.locator('td').first().click();
    await page().getByTestId('request-events').getByRole('heading', { name: `Request ${id}` }).waitFor();
    expect(await second.getAttribute('aria-current')).to.equal('true');
    // a seeded row has no events in the log behind it
    await page().getByText('The event log holds no event of this request').waitFor();
    await page().getByTestId('request-events').getByRole('button', { name: 'Close' }).click();
  });

  /**
   * Clicks Next page `pages` times; each time, the ms from the click to the new page's rows painted, as the
   * page itself measures them (a click listener, a mutation observer and the next animation frame), so
   * that the driver's own round trips do not count.
   */
  async function pageThrough(pages: number): Promise<number[]> {
    const timings: number[] = [];
    const seen = new Set<string>();
    for (let index = 0; index < pages; index++) {
      await page().evaluate((previous) => {
        const window = globalThis as any;
        const document = window.document;
        window.pageShown = new Promise<number>((resolve) => {
          let clickedAt: number | undefined;
          document.addEventListener('click', () => (clickedAt = window.performance.now()), { capture: true, once: true });
          const observer = new window.MutationObserver(() => {
            const first = document.querySelector('[data-testid="request-log"] tbody tr')?.getAttribute('data-request-id');
            if (clickedAt === undefined || !first || first === previous) return;
            observer.disconnect();
            window.requestAnimationFrame(() => resolve(window.performance.now() - clickedAt!));
          });
          observer.observe(document.body, { childList: true, subtree: true, attributes: true });
        });
      }, await firstRowId());
      await page().getByRole('navigation', { name: 'Requests pages' }).getByRole('button', { name: 'Next page' }).click();
      timings.push(Math.round(await page().evaluate(() => (globalThis as any).pageShown as Promise<number>)));
      const ids = await rows().evaluateAll((found: any[]) => found.map((row) => row.getAttribute('data-request-id') as string));
      expect(ids).to.have.length(50);
      for (const id of ids) {
        expect(seen.has(id), `${id} on two pages`).to.equal(false);
        seen.add(id);
      }
    }
    return timings;
  }

  const summary = (timings: number[]) => {
    const sorted = [...timings].sort((a, b) => a - b);
    return `median ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted.at(-1)} ms (${timings.join(', ')})`;
  };

  it(`pages through ${SEEDED.toLocaleString('en-US')} requests at under ${PAGE_BUDGET_MS} ms a page, every organization and one key's`, async () => {
    await page().goto(`${harness.gateway.url}/console#/requests`);
    await rows().first().waitFor();
    const all = await pageThrough(20);
    report(`request log, every organization, 50 a page of ${(SEEDED + 1).toLocaleString('en-US')}, click to rows painted: ${summary(all)}`);
    await browser.screenshot('12-request-log');

    await page().goto(`${harness.gateway.url}/console#/organizations/${orgId}/requests?key_id=key_seeded2&status=settled`);
    await rows().first().waitFor();
    const byKey = await pageThrough(10);
    report(`request log, one organization, key_seeded2, settled: ${summary(byKey)}`);
    expect(await rows().first().textContent()).to.include('key_seeded2');

    // the API alone, deep in the log: a page below the 90,000th request costs what the first does
    const deep = `gen-seed${String(90_000).padStart(7, '0')}`;
    const api: number[] = [];
    for (let round = 0; round < 5; round++) {
      const started = performance.now();
      const answer = await harness.admin.ok('GET', `/requests?limit=50&after=${deep}`);
      api.push(Math.round(performance.now() - started));
      expect(answer.data[0].id).to.equal(`gen-seed${String(90_001).padStart(7, '0')}`);
    }
    report(`GET /admin/v1/requests?limit=50&after=<the 90,000th>: ${summary(api)}`);
    expect(Math.max(...all, ...byKey, ...api)).to.be.below(PAGE_BUDGET_MS);
  });

  it('ran without a script error or a Content-Security-Policy violation', () => {
    expect(browser.errors).to.deep.equal([]);
  });
});
