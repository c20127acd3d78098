import { expect } from 'chai';
import { buildConsole } from '../../ops/console-build.js';
import { chromiumInstalled, CHROMIUM_MISSING, openConsoleBrowser, type ConsoleBrowser } from '../support/console-browser.js';
import { eventually } from '../support/eventually.js';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness.js';
import { TEST_ADMIN_TOKEN } from '../support/test-gateway.js';

const EMAIL = 'jane.doe@example.com';

/**
 * The organization's PII masking option in headless Chromium: turned on from the organization page, it
 * masks the organization's next request that sends no X-PII-Masking, and the fee shows on the spend page
 * as the type pii; turned off again, the next request goes unmasked.
 */
describe('console in a real browser: PII masking', function () {
  this.timeout(120_000);
  let harness: GatewayHarness;
  let browser: ConsoleBrowser;
  let orgId: string;
  let secret: string;
  const today = new Date().toISOString().slice(0, 10);

  before(async function () {
    if (!chromiumInstalled()) {
      process.stdout.write(`      skipped: ${CHROMIUM_MISSING}\n`);
      this.skip();
    }
    await buildConsole();
    harness = await startGatewayHarness();
    browser = await openConsoleBrowser();
    ({ orgId, secret } = await harness.customer('10'));
  });
  after(async () => {
    await browser?.close();
    if (harness) {
      try {
        await harness.checkLedger();
      } finally {
        await harness.close();
      }
    }
  });

  const page = () => browser.page;
  const chat = () =>
    fetch(`${harness.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: `Write to ${EMAIL}` }], max_tokens: 100 }),
    });

  it('turns the option on from the organization page; the next request without the header is masked', async () => {
    await page().goto(`${harness.gateway.url}/console`);
    await page().getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
    await page().getByRole('button', { name: 'Sign in' }).click();
    // the overview is the first page after signing in
    await page().getByRole('navigation', { name: 'Main' }).waitFor();
    await page().goto(`${harness.gateway.url}/console#/organizations/${orgId}/overview`);
    expect(await page().getByTestId('pii-masking').textContent()).to.equal('off');
    await page().getByRole('button', { name: 'Turn PII masking on' }).click();
    await page().getByTestId('pii-masking').filter({ hasText: /^on/ }).waitFor();
    expect((await harness.admin.ok('GET', `/organizations/${orgId}`)).pii_masking).to.equal(true);
    await browser.screenshot('10-organization-pii-masking-on');

    harness.openai.enqueue({ text: 'Sent to [EMAIL_1].' });
    // the access directory follows the change through the log: within moments
    await eventually(async () => {
      const response = await chat();
      expect(response.headers.get('x-pii-masking')).to.equal('applied');
      const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
      expect(body.choices[0]!.message.content).to.equal(`Sent to ${EMAIL}.`);
    });
    const sent = JSON.stringify(harness.openai.lastRequest!.body);
    expect(sent).not.to.include(EMAIL);
    expect(sent).to.include('[EMAIL_1]');
  });

  it("shows the masking fee on the spend page as the type pii, apart from the model's", async () => {
    await page().getByRole('link', { name: 'Spend' }).click();
    await page().getByLabel('Stacked by', { exact: true }).selectOption('type');
    // the masked request: 12 in, 7 out = 12 × 0.15 + 7 × 0.60 = 6 µUSD (0.000006), and the test catalog's fee 0.002;
    // earlier unmasked tries of the loop above, if any, add 0.000006 each to text
    await eventually(async () => {
      await page().getByRole('button', { name: 'Show' }).click();
      const rows = await page().getByTestId('spend-table').getByRole('row').allTextContents();
      expect(rows.find((row) => row.includes('pii'))).to.include(today).and.include('0.002');
    });
    await browser.screenshot('11-spend-by-type-pii');
  });

  it('turns the option off; the next request goes to the provider as written', async () => {
    await page().getByRole('navigation', { name: 'Organization' }).getByRole('link', { name: 'Overview' }).click();
    await page().getByRole('button', { name: 'Turn PII masking off' }).click();
    await page().getByTestId('pii-masking').filter({ hasText: 'off' }).waitFor();
    await eventually(async () => {
      const response = await chat();
      expect(response.headers.get('x-pii-masking')).to.equal('off');
    });
    expect(JSON.stringify(harness.openai.lastRequest!.body)).to.include(EMAIL);
  });
});
