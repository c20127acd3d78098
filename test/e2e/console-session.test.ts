import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/http/app.js';
import { consoleStatic } from '../../src/http/console-static.js';
import { createLogger } from '../../src/logger.js';
import { buildConsole } from '../../ops/console-build.js';
import { AdminClient } from '../support/admin-client.js';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../support/test-gateway.js';
import type { AddressInfo } from 'node:net';

type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;

/**
 * The console's session over plain HTTP: sign-in with the admin token for an HTTP-only cookie, the cookie as a
 * second way into the admin API, and the CSRF rules that keep another site's page from using it.
 */
describe('console: session, CSRF and built files', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let admin: AdminClient;
  let origin: string;
  before(async () => {
    await buildConsole();
    gateway = await startTestGateway();
    admin = new AdminClient(gateway.url);
    origin = gateway.url;
  });
  after(() => gateway?.dispose());

  const send = (path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
    fetch(`${gateway.url}${path}`, { method: init.method ?? 'GET', headers: init.headers ?? {}, ...(init.body === undefined ? {} : { body: init.body }), redirect: 'manual' });

  async function signIn(headers: Record<string, string> = {}) {
    const response = await send('/console/session', { method: 'POST', headers: { origin, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ token: TEST_ADMIN_TOKEN }) });
    expect(response.status).to.equal(204);
    const setCookie = response.headers.get('set-cookie')!;
    const cookie = setCookie.split(';')[0]!;
    const session = (await (await send("/console/session", { headers: { cookie } })).json()) as any;
    return { setCookie, cookie, csrf: session.csrf_token as string };
  }

  describe('sign-in', () => {
    it('sets an HTTP-only, SameSite=Strict cookie on the whole site, Secure only behind https', async () => {
      const { setCookie } = await signIn();
      expect(setCookie).to.match(/^gw_console=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=28800$/);
      expect(setCookie).not.to.include(TEST_ADMIN_TOKEN);
      const behindProxy = await signIn({ 'x-forwarded-proto': 'https' });
      expect(behindProxy.setCookie).to.match(/; Secure$/);
    });

    it('refuses a wrong token with 401 invalid_admin_token and sets no cookie', async () => {
      for (const token of ['wrong-token-0123456789abcdef', '', TEST_ADMIN_TOKEN.slice(0, -1)]) {
        const response = await send('/console/session', { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
        expect(response.status, token).to.be.oneOf([400, 401]);
        expect(response.headers.get('set-cookie')).to.equal(null);
        const body = (await response.json()) as any;
        expect(body.error.code).to.equal(token ? 'invalid_admin_token' : 'invalid_request');
      }
    });

    it('refuses a sign-in posted from another origin, even with the right token', async () => {
      const response = await send('/console/session', { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${TEST_ADMIN_TOKEN}` });
      expect(response.status).to.equal(403);
      expect(((await response.json()) as any).error.code).to.equal('csrf_check_failed');
      expect(response.headers.get('set-cookie')).to.equal(null);
    });

    it('answers 401 for the session without a cookie, or with an altered one', async () => {
      const { cookie } = await signIn();
      const altered = cookie.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'));
      const otherExpiry = cookie.replace(/=(\d+)\./, (_all, expiry: string) => `=${Number(expiry) + 1000}.`);
      for (const headers of [{} as Record<string, string>, { cookie: altered }, { cookie: otherExpiry }, { cookie: 'gw_console=garbage' }]) {
        const response = await send('/console/session', { headers });
        expect(response.status, JSON.stringify(headers)).to.equal(401);
        const admin = await send('/admin/v1/organizations', { headers });
        expect(admin.status, JSON.stringify(headers)).to.equal(401);
        expect(((await admin.json()) as any).error.code).to.equal('invalid_admin_token');
      }
    });
  });

  describe('the cookie on the admin API', () => {
    it('reads with the cookie alone', async () => {
      const { cookie } = await signIn();
      const organization = await admin.ok('POST', '/organizations', { name: 'Read with cookie' });
      const response = await send(`/admin/v1/organizations/${organization.id}`, { headers: { cookie } });
      expect(response.status).to.equal(200);
      expect(((await response.json()) as any).name).to.equal('Read with cookie');
    });

    it("reads every part of the admin API with the cookie, by the gateway's clock, whatever the time of the host", async () => {
      // A session lasts 8 hours by the clock that issued it. A gateway whose clock is 9 hours behind the host's
      // must still accept the cookie it has just issued on every admin route, not only on some.
      const behind = await startTestGateway({}, {}, { clock: { now: () => new Date(Date.now() - 9 * 3_600_000) } });
      try {
        const response = await fetch(`${behind.url}/console/session`, { method: 'POST', headers: { origin: behind.url, 'content-type': 'application/json' }, body: JSON.stringify({ token: TEST_ADMIN_TOKEN }) });
        expect(response.status).to.equal(204);
        const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
        for (const path of ['/admin/v1/organizations', '/admin/v1/projections', '/admin/v1/audit/verify']) {
          const read = await fetch(`${behind.url}${path}`, { headers: { cookie } });
          expect(read.status, path).to.equal(200);
        }
      } finally {
        await behind.dispose();
      }
    });

    it('changes nothing for a forged cross-site form: no CSRF header, or another Origin', async () => {
      const { cookie, csrf } = await signIn();
      const organization = await admin.ok('POST', '/organizations', { name: 'Target' });
      const credit = `/admin/v1/organizations/${organization.id}/credits`;
      const attempts: Array<Record<string, string>> = [
        // what a form on another site sends: the cookie (were it not SameSite), its own Origin, no custom header
        { cookie, origin: 'https://evil.example', 'content-type': 'text/plain' },
        { cookie, origin: 'null', 'content-type': 'text/plain' },
        // the header without the right value, or the right value from another origin
        { cookie, origin, 'x-console-csrf': 'guess', 'content-type': 'application/json' },
        { cookie, origin: 'https://evil.example', 'x-console-csrf': csrf, 'content-type': 'application/json' },
        { cookie, 'x-console-csrf': csrf, 'content-type': 'application/json' },
      ];
      for (const headers of attempts) {
        const response = await send(credit, { method: 'POST', headers, body: '{"amount_usd":"100.00"}' });
        expect(response.status, JSON.stringify(headers)).to.equal(403);
        expect(((await response.json()) as any).error.code).to.equal('csrf_check_failed');
      }
      const revoke = await send(`/admin/v1/organizations/${organization.id}`, { method: 'PATCH', headers: { cookie, origin: 'https://evil.example', 'content-type': 'text/plain' }, body: '{"status":"blocked"}' });
      expect(revoke.status).to.equal(403);
      const after = await admin.ok('GET', `/organizations/${organization.id}`);
      expect(after).to.include({ balance_usd: '0.00', status: 'active' });
    });

    it('changes with the CSRF header from the same origin, as the console page does', async () => {
      const { cookie, csrf } = await signIn();
      const organization = await admin.ok('POST', '/organizations', { name: 'Console top-up' });
      const headers = { cookie, origin, 'x-console-csrf': csrf, 'content-type': 'application/json', 'idempotency-key': 'console-test-1' };
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await send(`/admin/v1/organizations/${organization.id}/credits`, { method: 'POST', headers, body: '{"amount_usd":"7.25"}' });
        expect(response.status).to.equal(200);
      }
      // two posts with one Idempotency-Key: credited once, 7.25 USD
      expect((await admin.ok('GET', `/organizations/${organization.id}`)).balance_usd).to.equal('7.25');
    });

    it('keeps Authorization: Bearer working, and lets a wrong one fail even next to a valid cookie', async () => {
      const { cookie } = await signIn();
      expect((await admin.call('GET', '/organizations')).status).to.equal(200);
      const response = await send('/admin/v1/organizations', { headers: { cookie, authorization: 'Bearer wrong-token-0123456789abcdef' } });
      expect(response.status).to.equal(401);
    });

    it('signs out: the cookie is cleared, and sign-out itself needs the CSRF header', async () => {
      const { cookie, csrf } = await signIn();
      const forged = await send('/console/session', { method: 'DELETE', headers: { cookie, origin: 'https://evil.example' } });
      expect(forged.status).to.equal(403);
      const response = await send('/console/session', { method: 'DELETE', headers: { cookie, origin, 'x-console-csrf': csrf } });
      expect(response.status).to.equal(204);
      expect(response.headers.get('set-cookie')).to.match(/^gw_console=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0/);
    });
  });

  describe('the built files', () => {
    it('serves the page as no-cache with a strict CSP, and hashed assets as immutable', async () => {
      const page = await send('/console');
      expect(page.status).to.equal(200);
      expect(page.headers.get('cache-control')).to.equal('no-cache');
      expect(page.headers.get('content-security-policy')).to.include("script-src 'self'").and.include("frame-ancestors 'none'");
      const html = await page.text();
      const script = /src="(\/console\/assets\/main-[A-Z0-9]+\.js)"/.exec(html)?.[1];
      const stylesheet = /href="(\/console\/assets\/main-[A-Z0-9]+\.css)"/.exec(html)?.[1];
      expect(script, html).to.be.a('string');
      expect(stylesheet, html).to.be.a('string');
      for (const asset of [script!, stylesheet!]) {
        const response = await send(asset);
        expect(response.status, asset).to.equal(200);
        expect(response.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
      }
      expect((await send('/console/assets/main-NOTTHERE.js')).status).to.equal(404);
    });

    it('answers a clear 503 when the console has not been built', async () => {
      const empty = mkdtempSync(join(tmpdir(), 'gw-console-empty-'));
      const app = createApp({ logger: createLogger('silent'), readiness: [], observers: [], routers: [consoleStatic(empty)] });
      const server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      try {
        const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/console`);
        expect(response.status).to.equal(503);
        const body = (await response.json()) as any;
        expect(body.error.code).to.equal('service_unavailable');
        expect(body.error.message).to.include('npm run build');
      } finally {
        server.close();
        rmSync(empty, { recursive: true, force: true });
      }
    });
  });
});
