import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildConsole } from '../../ops/console-build.js';
import { chromiumInstalled, CHROMIUM_MISSING, openConsoleBrowser, type ConsoleBrowser } from '../support/console-browser.js';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness.js';
import { TEST_ADMIN_TOKEN } from '../support/test-gateway.js';

/**
 * What the console keeps from whoever is not signed in, in headless Chromium: a wrong token gets neither a
 * cookie nor access, a form on another site changes nothing, sign-out ends the session. And keyboard focus
 * stays visible.
 */
describe('console in a real browser: access', function () {
  this.timeout(120_000);
  let harness: GatewayHarness;
  let browser: ConsoleBrowser;
  let orgId: string;

  before(async function () {
    if (!chromiumInstalled()) {
      process.stdout.write(`      skipped: ${CHROMIUM_MISSING}\n`);
      this.skip();
    }
    await buildConsole();
    harness = await startGatewayHarness();
    browser = await openConsoleBrowser();
    orgId = (await harness.admin.ok('POST', '/organizations', { name: 'Target' })).id;
    await harness.admin.ok('POST', `/organizations/${orgId}/credits`, { amount_usd: '10.00' });
  });
  after(async () => {
    await browser?.close();
    await harness?.close();
  });

  const page = () => browser.page;

  it('refuses a wrong token: an error in plain words, no cookie, no access', async () => {
    await page().goto(`${harness.gateway.url}/console`);
    await page().getByLabel('Admin token').fill('wrong-token-0123456789abcdef');
    await page().getByRole('button', { name: 'Sign in' }).click();
    expect(await page().getByRole('alert').textContent()).to.include('invalid_admin_token');
    expect(await browser.context.cookies()).to.deep.equal([]);
    const status = await page().evaluate(async () => (await fetch('/admin/v1/organizations')).status);
    expect(status).to.equal(401);
    await browser.screenshot('01-sign-in-refused');
  });

  it('signs in with the right token', async () => {
    await page().getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
    await page().getByRole('button', { name: 'Sign in' }).click();
    await page().getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await browser.context.cookies()).to.have.length(1);
  });

  it('keeps keyboard focus visible', async () => {
    await page().getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Organizations' }).focus();
    await page().keyboard.press('Tab');
    const outline = await page().evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.activeElement).outlineStyle);
    expect(outline).not.to.equal('none');
  });

  /** Opens a page on `host` whose form posts a top-up of 1000 USD to the gateway; returns the gateway's answer. */
  async function forgedTopUp(host: 'localhost' | '127.0.0.1') {
    const target = `${harness.gateway.url}/admin/v1/organizations/${orgId}/credits`;
    const evil = await serve(host, `<!doctype html><form method="post" action="${target}" enctype="text/plain">
      <input name='{"amount_usd":"1000.00","x":"' value='"}'></form><script>document.forms[0].submit()</script>`);
    try {
      const answer = page().waitForResponse((response) => response.url() === target);
      await page().goto(evil.url);
      const response = await answer;
      return { status: response.status(), code: ((await response.json()) as any).error.code };
    } finally {
      evil.server.close();
    }
  }

  it('lets a forged form on another site change nothing: the browser does not even send the cookie', async () => {
    const before = await harness.admin.ok('GET', `/organizations/${orgId}`);
    // localhost is another site than 127.0.0.1: SameSite=Strict keeps the cookie home
    expect(await forgedTopUp('localhost')).to.deep.equal({ status: 401, code: 'invalid_admin_token' });
    expect((await harness.admin.ok('GET', `/organizations/${orgId}`)).balance_usd).to.equal(before.balance_usd);
  });

  it('lets a forged form of another origin on the same site change nothing: the cookie comes, the CSRF check stops it', async () => {
    const before = await harness.admin.ok('GET', `/organizations/${orgId}`);
    // 127.0.0.1 on another port is the same site (SameSite ignores ports), so the browser sends the cookie
    expect(await forgedTopUp('127.0.0.1')).to.deep.equal({ status: 403, code: 'csrf_check_failed' });
    expect((await harness.admin.ok('GET', `/organizations/${orgId}`)).balance_usd).to.equal(before.balance_usd);
    expect(before.balance_usd).to.equal('10.00');
  });

  it('signs out', async () => {
    await page().goto(`${harness.gateway.url}/console`);
    await page().getByRole('button', { name: 'Sign out' }).click();
    await page().getByLabel('Admin token').waitFor();
    expect(await browser.context.cookies()).to.deep.equal([]);
    expect(await page().evaluate(async () => (await fetch('/admin/v1/organizations')).status)).to.equal(401);
  });
});

/** A page of another origin: on `localhost` another site than the gateway's 127.0.0.1, on 127.0.0.1 the same site. */
async function serve(host: string, html: string): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://${host}:${(server.address() as AddressInfo).port}/` };
}
