import { expect } from 'chai';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { AdminClient } from '../support/admin-client.js';
import { testDatabaseUrl } from '../support/databases.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeOpenAi } from '../../ops/fake-providers/fake-openai-provider.js';
import { catalogFor, FAKE_OPENAI_KEY, startTestGateway, TEST_ADMIN_TOKEN } from '../support/test-gateway.js';
import { freePort } from '../../ops/free-port.js';

type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;

async function models(url: string, headers: Record<string, string>) {
  const response = await fetch(`${url}/v1/models`, { headers });
  return { status: response.status, body: (await response.json()) as any };
}

describe('organizations, keys and the admin API', function () {
  this.timeout(60_000);
  let gateway: TestGateway;
  let admin: AdminClient;
  before(async () => {
    gateway = await startTestGateway();
    admin = new AdminClient(gateway.url);
  });
  after(() => gateway.dispose());

  describe('authentication', () => {
    it('accepts the key in Authorization: Bearer or in x-api-key', async () => {
      const { secret } = await admin.organizationWithKey();
      expect((await models(gateway.url, { authorization: `Bearer ${secret}` })).status).to.equal(200);
      expect((await models(gateway.url, { 'x-api-key': secret })).status).to.equal(200);
    });

    it('answers 401 invalid_api_key for a missing or unknown key', async () => {
      const attempts: Array<Record<string, string>> = [{}, { authorization: 'Bearer sk-gw-unknown' }, { 'x-api-key': 'nope' }, { authorization: 'Basic abc' }];
      for (const headers of attempts) {
        const { status, body } = await models(gateway.url, headers);
        expect(status, JSON.stringify(headers)).to.equal(401);
        expect(body.error).to.include({ type: 'authentication_error', code: 'invalid_api_key' });
      }
    });

    it('refuses a revoked key on the very next request', async () => {
      const { keyId, secret } = await admin.organizationWithKey();
      expect((await models(gateway.url, { 'x-api-key': secret })).status).to.equal(200);
      const revoked = await admin.ok('POST', `/keys/${keyId}/revoke`);
      expect(revoked.status).to.equal('revoked');
      const { status, body } = await models(gateway.url, { 'x-api-key': secret });
      expect(status).to.equal(401);
      expect(body.error.code).to.equal('invalid_api_key');
    });

    it('refuses an expired key', async () => {
      const soon = new Date(Date.now() + 1_500).toISOString();
      const { keyId, secret } = await admin.organizationWithKey({ key: { expires_at: soon } });
      expect((await models(gateway.url, { 'x-api-key': secret })).status).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      expect((await models(gateway.url, { 'x-api-key': secret })).status).to.equal(401);
      expect((await admin.ok('GET', `/keys/${keyId}`)).status).to.equal('expired');
    });

    it('answers 403 account_blocked for a blocked organization, and serves it again once unblocked', async () => {
      const { orgId, secret } = await admin.organizationWithKey();
      await admin.ok('PATCH', `/organizations/${orgId}`, { status: 'blocked' });
      const { status, body } = await models(gateway.url, { 'x-api-key': secret });
      expect(status).to.equal(403);
      expect(body.error).to.include({ type: 'permission_error', code: 'account_blocked' });
      await admin.ok('PATCH', `/organizations/${orgId}`, { status: 'active' });
      expect((await models(gateway.url, { 'x-api-key': secret })).status).to.equal(200);
    });

    it('lists only the models the key may use', async () => {
      const { keyId, secret } = await admin.organizationWithKey({ key: { models: ['openai/gpt-4o-mini', 'local/llama'] } });
      const listed = (await models(gateway.url, { 'x-api-key': secret })).body.data.map((model: { id: string }) => model.id);
      expect(listed).to.deep.equal(['openai/gpt-4o-mini', 'local/llama']);
      await admin.ok('PATCH', `/keys/${keyId}`, { models: ['local/llama'] });
      expect((await models(gateway.url, { 'x-api-key': secret })).body.data.map((model: { id: string }) => model.id)).to.deep.equal(['local/llama']);
    });

    it('checks X-Service-Space against the key organization', async () => {
      const { orgId, secret } = await admin.organizationWithKey();
      const other = await admin.organizationWithKey();
      const space = await admin.ok('POST', `/organizations/${orgId}/spaces`, { name: 'research' });
      const foreign = await admin.ok('POST', `/organizations/${other.orgId}/spaces`, { name: 'theirs' });
      expect(space.id).to.match(/^spc_/);
      expect((await models(gateway.url, { 'x-api-key': secret, 'x-service-space': space.id })).status).to.equal(200);
      for (const spaceId of [foreign.id, 'spc_nothing']) {
        const { status, body } = await models(gateway.url, { 'x-api-key': secret, 'x-service-space': spaceId });
        expect(status).to.equal(400);
        expect(body.error).to.include({ code: 'invalid_space' });
      }
    });
  });

  describe('admin API', () => {
    it('refuses a missing or wrong admin token with 401 in the OpenAI error shape', async () => {
      for (const token of ['', 'wrong-token-0123456789', `${TEST_ADMIN_TOKEN}x`]) {
        const { status, body } = await new AdminClient(gateway.url, token).call('GET', '/organizations/org_x');
        expect(status).to.equal(401);
        expect(body.error).to.include({ type: 'authentication_error', code: 'invalid_admin_token' });
      }
    });

    it('creates an organization with its limits and shows money as USD strings', async () => {
      const created = await admin.call('POST', '/organizations', { name: 'Acme', pii_masking: true, spend_limits: { daily_usd: '5', monthly_usd: '100.50' } });
      expect(created.status).to.equal(201);
      expect(created.body).to.deep.include({ name: 'Acme', status: 'active', pii_masking: true, balance_usd: '0.00', reserved_usd: '0.00' });
      expect(created.body.spend_limits).to.deep.equal({ daily_usd: '5.00', monthly_usd: '100.50' });
      expect(created.body.id).to.match(/^org_/);
      expect((await admin.ok('GET', `/organizations/${created.body.id}`)).name).to.equal('Acme');
    });

    it('adds credits once per Idempotency-Key', async () => {
      const { orgId } = await admin.organizationWithKey();
      const headers = { 'idempotency-key': 'top-up-2026-11-21' };
      expect((await admin.ok('POST', `/organizations/${orgId}/credits`, { amount_usd: '10.50' }, headers)).balance_usd).to.equal('10.50');
      expect((await admin.ok('POST', `/organizations/${orgId}/credits`, { amount_usd: '10.50' }, headers)).balance_usd).to.equal('10.50');
      expect((await admin.ok('POST', `/organizations/${orgId}/credits`, { amount_usd: '1' })).balance_usd).to.equal('11.50');
      expect((await admin.ok('GET', `/organizations/${orgId}`)).balance_usd).to.equal('11.50');
    });

    it('creates teams, employees and spaces, and lists them', async () => {
      const { orgId } = await admin.organizationWithKey();
      const team = await admin.ok('POST', `/organizations/${orgId}/teams`, { name: 'Core', spend_limits: { monthly_usd: '50' } });
      const employee = await admin.ok('POST', `/organizations/${orgId}/employees`, { name: 'Ada', team_id: team.id });
      await admin.ok('POST', `/organizations/${orgId}/spaces`, { name: 'research' });
      expect(team.id).to.match(/^team_/);
      expect(employee).to.deep.include({ team_id: team.id, name: 'Ada' });
      expect((await admin.ok('GET', `/organizations/${orgId}/teams`)).data).to.have.length(1);
      expect((await admin.ok('GET', `/organizations/${orgId}/employees`)).data[0]).to.deep.include({ id: employee.id, team_id: team.id });
      expect((await admin.ok('GET', `/organizations/${orgId}/spaces`)).data[0]).to.deep.include({ name: 'research' });
      const key = await admin.ok('POST', `/organizations/${orgId}/keys`, { employee_id: employee.id });
      expect(key.employee_id).to.equal(employee.id);
    });

    it('issues a key with its limits and defaults, and shows the secret only once', async () => {
      const { orgId } = await admin.organizationWithKey();
      const issued = await admin.call('POST', `/organizations/${orgId}/keys`, {
        name: 'ci',
        models: ['openai/gpt-4o-mini'],
        limits: { daily_usd: '1', by_type: { image: { monthly_usd: '2' } }, by_model: { 'openai/gpt-4o-mini': { daily_usd: '0.5' } } },
      });
      expect(issued.status).to.equal(201);
      expect(issued.body.key).to.match(/^sk-gw-[0-9A-Za-z]{43}$/);
      expect(issued.body).to.deep.include({ rpm: 120, tpm: 200000, status: 'valid', expires_at: null, models: ['openai/gpt-4o-mini'] });
      expect(issued.body.limits).to.deep.equal({
        daily_usd: '1.00',
        monthly_usd: null,
        by_type: { image: { daily_usd: null, monthly_usd: '2.00' } },
        by_model: { 'openai/gpt-4o-mini': { daily_usd: '0.50', monthly_usd: null } },
      });
      const fetched = await admin.ok('GET', `/keys/${issued.body.id}`);
      expect(fetched).not.to.have.property('key');
      expect(fetched.secret_hint).to.equal(`sk-gw-…${issued.body.key.slice(-4)}`);
      const listed = await admin.ok('GET', `/organizations/${orgId}/keys`);
      expect(listed.data.map((key: { id: string }) => key.id)).to.include(issued.body.id);
      expect(JSON.stringify(listed)).not.to.contain(issued.body.key);
    });

    const invalid: Array<[string, string, unknown, string, RegExp]> = [
      ['POST', '/organizations', { name: '' }, 'name', /empty/],
      ['POST', '/organizations', { name: 'x', spend_limits: { daily_usd: 5 } }, 'spend_limits.daily_usd', /USD decimal string/],
      ['POST', '/organizations', { name: 'x', colour: 'red' }, '', /unknown field colour/],
      ['POST', '/organizations', { name: 'x', pii_masking: 'yes' }, 'pii_masking', /boolean/],
      ['PATCH', '/organizations/{org}', { status: 'sleeping' }, 'status', /active|blocked/],
      ['POST', '/organizations/{org}/credits', { amount_usd: '-3' }, 'amount_usd', /USD decimal string/],
      ['POST', '/organizations/{org}/credits', { amount_usd: '0' }, '', /greater than zero/],
      ['POST', '/organizations/{org}/credits', {}, 'amount_usd', /USD decimal string/],
      ['POST', '/organizations/{org}/employees', { name: 'x', team_id: 'team_missing' }, 'team_id', /not a team/],
      ['POST', '/organizations/{org}/keys', { rpm: 0 }, 'rpm', /./],
      ['POST', '/organizations/{org}/keys', { models: ['openai/gpt-9'] }, 'models', /not in the catalog/],
      ['POST', '/organizations/{org}/keys', { limits: { by_model: { 'nope/x': { daily_usd: '1' } } } }, 'limits.by_model', /nope\/x is not in the catalog/],
      ['POST', '/organizations/{org}/keys', { limits: { by_type: { music: { daily_usd: '1' } } } }, 'limits.by_type', /music/],
      ['POST', '/organizations/{org}/keys', { expires_at: 'tomorrow' }, 'expires_at', /./],
      ['POST', '/organizations/{org}/keys', { employee_id: 'emp_missing' }, 'employee_id', /not an employee/],
      ['PATCH', '/keys/{key}', { tpm: -1 }, 'tpm', /./],
    ];
    for (const [method, template, body, field, reason] of invalid) {
      it(`answers 400 naming ${field || 'the problem'} for ${method} ${template} ${JSON.stringify(body)}`, async () => {
        const { orgId, keyId } = await admin.organizationWithKey();
        const path = template.replace('{org}', orgId).replace('{key}', keyId);
        const { status, body: answer } = await admin.call(method, path, body);
        expect(status).to.equal(400);
        expect(answer.error.type).to.equal('invalid_request_error');
        expect(answer.error.code).to.equal('invalid_request');
        if (field) expect(answer.error.message).to.contain(field);
        expect(answer.error.message).to.match(reason);
      });
    }

    it('answers 400 invalid_json for a body that is not JSON', async () => {
      const { status, body } = await admin.call('POST', '/organizations', '{"name":');
      expect(status).to.equal(400);
      expect(body.error.code).to.equal('invalid_json');
    });

    it('answers 404 for unknown ids', async () => {
      for (const [method, path, body] of [
        ['GET', '/organizations/org_missing'],
        ['PATCH', '/organizations/org_missing', { status: 'blocked' }],
        ['POST', '/organizations/org_missing/credits', { amount_usd: '1' }],
        ['POST', '/organizations/org_missing/keys', {}],
        ['GET', '/keys/key_missing'],
        ['POST', '/keys/key_missing/revoke'],
      ] as Array<[string, string, unknown?]>) {
        const { status, body: answer } = await admin.call(method, path, body);
        expect(status, `${method} ${path}`).to.equal(404);
        expect(answer.error.code).to.equal('resource_not_found');
      }
    });

    it('keeps secrets out of events and read models', async () => {
      const { secret } = await admin.organizationWithKey();
      const client = new pg.Client({ connectionString: testDatabaseUrl() });
      await client.connect();
      try {
        const tables = await client.query<{ table_schema: string; table_name: string }>(
          `select table_schema, table_name from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema') and table_type = 'BASE TABLE'`,
        );
        for (const { table_schema, table_name } of tables.rows) {
          const { rows } = await client.query(`select count(*)::int as n from "${table_schema}"."${table_name}" t where t::text like $1`, [`%${secret.slice(6)}%`]);
          expect(rows[0].n, `${table_schema}.${table_name} holds the secret`).to.equal(0);
        }
      } finally {
        await client.end();
      }
    });
  });

  it('a second gateway process refuses a key on the very next spending request after it was revoked through the first', async () => {
    // Strict on every request that spends (the account fence); reads like /v1/models follow within the
    // notification latency. The second process is a real one, with its own caches, on the same database.
    const fake = await startFakeOpenAi({ apiKey: FAKE_OPENAI_KEY });
    const port = await freePort();
    const directory = mkdtempSync(join(tmpdir(), 'gw-second-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: {
        PATH: process.env.PATH!,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: testDatabaseUrl(),
        CATALOG_FILE: catalogFor(directory, { openai: fake.url }),
        TEST_OPENAI_KEY: FAKE_OPENAI_KEY,
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    child.stdout!.on('data', (chunk) => (logs += chunk));
    child.stderr!.on('data', (chunk) => (logs += chunk));
    const second = `http://127.0.0.1:${port}`;
    const chat = (secret: string) =>
      fetch(`${second}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 }),
      });
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          if ((await fetch(`${second}/healthz`)).ok) break;
        } catch {
          if (attempt > 300) throw new Error(`second gateway did not start: ${logs}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      for (let round = 0; round < 5; round++) {
        const { keyId, secret } = await admin.organizationWithKey({ credits: '1' });
        // the second process has served this key (its caches hold the key and the account)
        for (let attempt = 0; (await chat(secret)).status !== 200; attempt++) {
          if (attempt > 100) throw new Error('the second gateway never served the key');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await admin.ok('POST', `/keys/${keyId}/revoke`);
        const refused = await chat(secret);
        expect(refused.status, `round ${round}`).to.equal(401);
        expect(((await refused.json()) as { error: { code: string } }).error.code).to.equal('invalid_api_key');
      }
      expect(logs, 'the secret never reaches a log line').not.to.match(/sk-gw-[0-9A-Za-z]{43}/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      await fake.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
