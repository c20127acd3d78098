import { expect } from 'chai';
import { buildConsole } from '../../ops/console-build.js';
import { verifyWebhook } from '../../src/alerts/standard-webhooks.js';
import { chromiumInstalled, CHROMIUM_MISSING, openConsoleBrowser, signInToConsole, type ConsoleBrowser } from '../support/console-browser.js';
import { createScratchDatabase } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness.js';
import { TEST_ADMIN_TOKEN } from '../support/test-gateway.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The spend controls in the console, in headless Chromium: a key issued with its caps, the organization's
 * concurrency cap and budget alerts saved from its Caps and alerts tab, a webhook set (its secret shown
 * once), a test sent to a real receiver that checks its signature, and the delivery in the log. Checked
 * through the admin API, as the gateway holds them.
 */
describe('console in a real browser: spend controls', function () {
  this.timeout(120_000);
  let scratch: { url: string; drop: () => Promise<void> };
  let harness: GatewayHarness;
  let browser: ConsoleBrowser;
  let receiver: WebhookReceiver;
  let orgId: string;

  before(async function () {
    if (!chromiumInstalled()) {
      process.stdout.write(`      skipped: ${CHROMIUM_MISSING}\n`);
      this.skip();
    }
    await buildConsole();
    // its own database: the dispatcher of this gateway sends only this suite's deliveries
    scratch = await createScratchDatabase('console_controls');
    harness = await startGatewayHarness({ DATABASE_URL: scratch.url });
    receiver = await startWebhookReceiver();
    browser = await openConsoleBrowser();
    orgId = (await harness.admin.ok('POST', '/organizations', { name: 'Capped' })).id;
    await signInToConsole(browser, harness.gateway.url, TEST_ADMIN_TOKEN);
  });
  after(async () => {
    await browser?.close();
    await harness?.close();
    await receiver?.close();
    await scratch?.drop();
  });

  const page = () => browser.page;
  const controls = () => harness.admin.ok('GET', `/organizations/${orgId}/spend-controls`);

  it('issues a key with a concurrency cap and a cost cap', async () => {
    await page().goto(`${harness.gateway.url}/console#/organizations/${orgId}/keys`);
    await page().getByLabel('Requests at once').fill('4');
    await page().getByLabel('Cost cap per request (USD)').fill('0.05');
    await page().getByRole('button', { name: 'Issue key' }).click();
    await page().getByText('copy its secret now').waitFor();
    const [key] = (await harness.admin.ok('GET', `/organizations/${orgId}/keys`)).data;
    expect(key).to.deep.include({ max_concurrent_requests: 4, max_cost_per_request_usd: '0.05' });
    expect(await page().locator(`tr[data-key-id="${key.id}"]`).textContent()).to.contain('4 at once, at most $0.05 a request');
  });

  it("saves the organization's cap and budget alerts", async () => {
    await page().goto(`${harness.gateway.url}/console#/organizations/${orgId}/controls`);
    await page().getByRole('heading', { name: 'Requests at once' }).waitFor();
    await page().getByRole('spinbutton', { name: 'Requests at once' }).fill('12');
    await page().getByRole('button', { name: 'Save cap' }).click();
    await eventually(async () => expect((await controls()).max_concurrent_requests).to.equal(12));
    await page().getByRole('button', { name: 'Add a rule' }).click();
    await page().getByLabel('Percentages of the limit').fill('90, 50');
    await page().getByLabel('Low balance (USD)').fill('2.5');
    await page().getByRole('button', { name: 'Save alerts' }).click();
    await eventually(async () =>
      expect((await controls()).budget_alerts).to.deep.equal({ limit_percentages: [{ scope: 'key', id: null, percents: [50, 90] }], low_balance_usd: '2.50' }),
    );
    await browser.screenshot('12-spend-controls');
  });

  it('sets the webhook, shows its secret once, and sends a signed test that the log shows delivered', async () => {
    await page().getByLabel('Webhook URL').fill(receiver.url);
    await page().getByRole('button', { name: 'Set webhook' }).click();
    const secret = await page().getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).to.match(/^whsec_/);
    await page().getByRole('button', { name: 'I have stored it' }).click();
    await page().getByRole('button', { name: 'Send a test' }).click();
    await eventually(async () => expect(receiver.received).to.have.length(1), 15_000, 100);
    const [sample] = receiver.received;
    verifyWebhook(secret, sample!.headers, sample!.body, new Date(sample!.at));
    await eventually(async () => {
      await page().getByRole('button', { name: 'Refresh' }).click();
      expect(await page().locator(`tr[data-delivery-id="${sample!.headers['webhook-id']}"]`).textContent()).to.contain('delivered');
    }, 15_000, 250);
    await browser.screenshot('13-webhook-deliveries');
  });
});
