import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { testDatabaseUrl } from '../support/databases.js';
import { startTestGateway, TEST_CATALOG } from '../support/test-gateway.js';

const run = promisify(execFile);

async function cli(...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/admin/cli.ts', ...args], {
    env: { PATH: process.env.PATH!, DATABASE_URL: testDatabaseUrl(), CATALOG_FILE: TEST_CATALOG },
  });
  return JSON.parse(stdout);
}

describe('admin CLI', function () {
  this.timeout(60_000);

  it('creates an organization, tops it up once per idempotency key, issues and revokes a key seen by a running gateway', async () => {
    const gateway = await startTestGateway();
    try {
      const organization = await cli('create-organization', '--name', 'From the CLI', '--monthly-usd', '100');
      expect(organization).to.deep.include({ name: 'From the CLI', balance_usd: '0.00' });
      expect(organization.spend_limits).to.deep.equal({ daily_usd: null, monthly_usd: '100.00' });
      expect(organization.pii_masking).to.equal(false);
      expect((await cli('set-pii-masking', organization.id, 'on')).pii_masking).to.equal(true);
      expect((await cli('show-organization', organization.id)).pii_masking).to.equal(true);
      expect((await cli('set-pii-masking', organization.id, 'off')).pii_masking).to.equal(false);
      expect((await cli('add-credits', organization.id, '12.5', '--idempotency-key', 'k1')).balance_usd).to.equal('12.50');
      expect((await cli('add-credits', organization.id, '12.5', '--idempotency-key', 'k1')).balance_usd).to.equal('12.50');
      const key = await cli('issue-key', organization.id, '--name', 'cli key', '--models', 'local/llama', '--rpm', '30');
      expect(key.key).to.match(/^sk-gw-/);
      expect(key).to.deep.include({ rpm: 30, models: ['local/llama'], status: 'valid' });

      const list = async () => fetch(`${gateway.url}/v1/models`, { headers: { 'x-api-key': key.key } });
      for (let attempt = 0; (await list()).status !== 200; attempt++) {
        if (attempt > 100) throw new Error('the gateway never saw the key issued by the CLI');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect((await cli('revoke-key', key.id)).status).to.equal('revoked');
      // Another process's change reaches the gateway's directory through the log (within about 50 ms).
      for (let attempt = 0; (await list()).status !== 401; attempt++) {
        if (attempt > 100) throw new Error('the gateway never saw the revocation made by the CLI');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await gateway.dispose();
    }
  });

  it("sets a key's caps and the organization's spend controls, webhook and test sample", async () => {
    const organization = await cli('create-organization', '--name', 'Controls from the CLI');
    const key = await cli('issue-key', organization.id, '--max-concurrent', '4', '--max-cost-usd', '0.05');
    expect(key).to.deep.include({ max_concurrent_requests: 4, max_cost_per_request_usd: '0.05' });
    expect(await cli('set-key-caps', key.id, '--max-concurrent', 'none')).to.deep.include({ max_concurrent_requests: null, max_cost_per_request_usd: '0.05' });
    await cli('set-org-concurrency', organization.id, '20');
    const controls = await cli('set-budget-alerts', organization.id, '--percent', 'key=80,50', '--percent', `key:${key.id}=90`, '--low-balance-usd', '5');
    expect(controls).to.deep.include({
      max_concurrent_requests: 20,
      budget_alerts: { limit_percentages: [{ scope: 'key', id: null, percents: [50, 80] }, { scope: 'key', id: key.id, percents: [90] }], low_balance_usd: '5.00' },
    });
    // a port nothing listens on: the gateways of other suites on this database try it and fail at once
    const webhook = await cli('set-webhook', organization.id, 'http://127.0.0.1:9/hooks');
    expect(webhook.secret).to.match(/^whsec_/);
    expect((await cli('test-webhook', organization.id)).type).to.equal('webhook.test');
    expect((await cli('webhook-deliveries', organization.id)).data.map((delivery: { type: string }) => delivery.type)).to.deep.equal(['webhook.test']);
  });

  it('explains a wrong command and an unknown id', async () => {
    const wrong = await run(process.execPath, ['--import', 'tsx', 'src/admin/cli.ts', 'make-coffee'], {
      env: { PATH: process.env.PATH!, DATABASE_URL: testDatabaseUrl() },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(wrong).to.include({ code: 2 });
    expect((wrong as { stderr: string }).stderr).to.contain('unknown command make-coffee').and.to.contain('usage:');
    const missing = await run(process.execPath, ['--import', 'tsx', 'src/admin/cli.ts', 'show-key', 'key_nothing'], {
      env: { PATH: process.env.PATH!, DATABASE_URL: testDatabaseUrl() },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(missing).to.include({ code: 1 });
    expect((missing as { stderr: string }).stderr).to.contain('resource_not_found');
  });
});
