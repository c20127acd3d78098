import { expect } from 'chai';
import { buildConsole } from '../../ops/console-build.js';
import { chromiumInstalled, CHROMIUM_MISSING, openConsoleBrowser, signInToConsole, type ConsoleBrowser } from '../support/console-browser.js';
import { eventually } from '../support/eventually.js';
import { startOverviewHistory, type OverviewHistory } from '../support/overview-history.js';
import { TEST_ADMIN_TOKEN } from '../support/test-gateway.js';

/**
 * The console's overview and models pages in headless Chromium, on a known history
 * (test/support/overview-history.ts): every figure on the page is the admin API's answer for the same
 * moment, money written as `$` and the API's digits; the figures link to the pages they come from.
 */
describe('console in a real browser: overview and models', function () {
  this.timeout(120_000);
  let history: OverviewHistory;
  let browser: ConsoleBrowser;
  const page = () => browser.page;
  const admin = () => history.harness.admin;
  const text = async (testId: string) => (await page().getByTestId(testId).textContent())?.trim();
  /** A table's body as text, row by row, cells joined by `|`. */
  const rowsOf = (testId: string) =>
    page()
      .getByTestId(testId)
      .locator('tbody tr')
      .evaluateAll((rows: any[]) => rows.map((row) => [...row.cells].map((cell: any) => cell.textContent.trim()).join('|')));

  before(async function () {
    if (!chromiumInstalled()) {
      process.stdout.write(`      skipped: ${CHROMIUM_MISSING}\n`);
      this.skip();
    }
    await buildConsole();
    history = await startOverviewHistory();
    browser = await openConsoleBrowser();
  });
  after(async () => {
    await browser?.close();
    await history?.close();
  });

  it('opens on the overview after sign-in, its spend and traffic figures those of GET /overview', async () => {
    await signInToConsole(browser, history.harness.gateway.url, TEST_ADMIN_TOKEN);
    await page().getByTestId('spend-today').waitFor();
    const overview = await admin().ok('GET', '/overview');
    expect(await text('spend-today')).to.equal(`$${overview.spend.today.total_usd}`).and.equal('$0.00135');
    expect(await text('spend-yesterday')).to.equal(`$${overview.spend.yesterday.total_usd}`).and.equal('$0.000006');
    expect(await text('spend-month')).to.equal(`$${overview.spend.month.total_usd}`);
    expect(await text('spend-previous-month')).to.equal(`$${overview.spend.previous_month.total_usd}`).and.equal('$0.00495');
    expect(await text('requests-last-hour')).to.equal(String(overview.traffic.requests)).and.equal('4');
    expect(await text('errors-last-hour')).to.equal(String(overview.traffic.errors)).and.equal('1');
    expect(await text('open-reservations')).to.equal('0');
    const projections = await admin().ok('GET', '/projections');
    expect(await text('projection-lag')).to.match(/^\d+ ms$/);
    expect(projections.data.some((projection: { status: string }) => projection.status === 'active')).to.equal(true);
    expect(await page().getByTestId('traffic-chart').getAttribute('aria-label')).to.include('4 requests and 1 errors');
  });

  it('lists the top spenders and the organizations close to a limit as GET /overview does, for the month and for today', async () => {
    const money = (row: { requests: number; cost_usd: string }) => `${row.requests}|$${row.cost_usd}`;
    const month = (await admin().ok('GET', '/overview?period=month')).top;
    expect(await rowsOf('top-organizations')).to.deep.equal(month.organizations.map((row: any) => `${row.name}|${money(row)}`));
    expect(await rowsOf('top-keys')).to.deep.equal(month.keys.map((row: any) => `${row.name}|${money(row)}`));
    expect(await rowsOf('top-models')).to.deep.equal(month.models.map((row: any) => `${row.model}|${money(row)}`));
    expect((await rowsOf('top-organizations'))[0]).to.match(/^Alpha\|/);
    const { attention } = await admin().ok('GET', '/overview');
    expect(await rowsOf('attention')).to.deep.equal(attention.map((row: any) => `${row.name}|${row.reason === 'balance' ? 'balance' : 'daily spend limit'}|$${row.left_usd}|$${row.of_usd}|${row.left_percent.toFixed(1)}`));
    expect(await rowsOf('attention')).to.deep.equal(['Gamma|daily spend limit|$0.00003|$0.00048|6.2', 'Beta|balance|$0.0004|$0.0049|8.1']);
    await browser.screenshot('11-overview');

    await page().getByRole('group', { name: 'Period of the top spenders' }).getByRole('button', { name: 'Today' }).click();
    const today = (await admin().ok('GET', '/overview?period=today')).top;
    await eventually(async () => expect(await rowsOf('top-organizations')).to.deep.equal(today.organizations.map((row: any) => `${row.name}|${money(row)}`)));
    expect((await rowsOf('top-organizations'))[0]).to.equal('Alpha|2|$0.0009');
    expect(await page().getByRole('button', { name: 'Today' }).getAttribute('aria-pressed')).to.equal('true');
  });

  it('shows a running request among the open reservations, with what it holds', async () => {
    const held = await history.holdOpen();
    try {
      await page().getByRole('button', { name: 'Refresh' }).click();
      await page().getByTestId('open-reservations').filter({ hasText: '1' }).waitFor();
      expect(await text('open-amount')).to.equal(`$${(await admin().ok('GET', '/overview')).open_reservations.amount_usd}`).and.equal('$0.00006165');
    } finally {
      await held.release();
    }
  });

  it('links the errors of the last hour to those requests in the log', async () => {
    await page().getByTestId('errors-last-hour').click();
    await page().getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
    expect(page().url()).to.match(/#\/requests\?status=error&from=.+&to=.+/);
    const rows = page().getByTestId('request-log').locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).to.equal(1);
    expect(await rows.first().textContent()).to.include('Beta').and.include('released (provider error)').and.include('chat');
    expect(await page().getByLabel('Status').inputValue()).to.equal('error');
  });

  it('lists the catalog on the models page: category, provider, prices per unit, output ceiling, capabilities', async () => {
    await page().getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Models' }).click();
    await page().getByTestId('models').waitFor();
    const models = (await admin().ok('GET', '/models')).data;
    const withVersions = await rowsOf('models');
    // the last cell: the price version in force and since when, as GET /models says, and its history button
    for (const [index, row] of withVersions.entries()) {
      const model = models[index];
      expect(row.split('|').at(-1)).to.equal(`v${model.pricing_version} since ${model.pricing_effective_at.slice(0, 10)} ${model.pricing_effective_at.slice(11, 19)} history`);
    }
    const rows = withVersions.map((row) => row.split('|').slice(0, -1).join('|'));
    expect(rows).to.have.length(models.length);
    expect(rows.map((row) => row.split('|')[0])).to.deep.equal(models.map((model: { id: string }) => model.id));
    expect(rows).to.include('openai/gpt-4o-mini|text|openai|$0.15|$0.075|—|$0.60|—|16,384|128,000|tools, vision, prompt_cache');
    expect(rows).to.include('anthropic/claude-sonnet-4-5|text|anthropic|$3.00|$0.30|$3.75|$15.00|—|64,000|—|tools, vision, reasoning, prompt_cache');
    expect(rows).to.include('openai/whisper-1|speech|openai|—|—|—|—|$0.006 / audio minute|—|—|—');
    expect(rows).to.include('openai/gpt-image-1|image|openai|—|—|—|—|$0.04 / image|—|—|—');
    await browser.screenshot('14-models');
  });

  it("shows a model's price history, each version as GET /models/{id}/prices lists it, newest first", async () => {
    await page().locator('tr[data-model="openai/gpt-4o-mini"]').getByRole('button', { name: 'history' }).click();
    await page().getByTestId('price-history').waitFor();
    const versions = (await admin().ok('GET', `/models/${encodeURIComponent('openai/gpt-4o-mini')}/prices`)).data.reverse();
    const rows = await rowsOf('price-history');
    expect(rows).to.have.length(versions.length);
    const newest = versions[0];
    expect(rows[0]).to.equal(
      `v${newest.version}|${newest.effective_at.slice(0, 10)} ${newest.effective_at.slice(11, 19)}|in force|catalog file|input $0.15, cached input $0.075, output $0.60, masking fee $0.002`,
    );
    await browser.screenshot('15-model-price-history');
  });

  it('ran without a script error or a Content-Security-Policy violation', () => {
    expect(browser.errors).to.deep.equal([]);
  });
});
