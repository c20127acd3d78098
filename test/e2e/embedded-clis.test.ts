import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startFakeOpenAi, type FakeOpenAi } from '../../ops/fake-providers/fake-openai-provider.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { npmRun } from '../support/audit-cli.js';
import { eventually } from '../support/eventually.js';
import { FAKE_OPENAI_KEY, TEST_ADMIN_TOKEN } from '../support/test-gateway.js';

/**
 * The embedded mode: one gateway process holds the PGlite data directory, and `npm run admin`, `audit`
 * and `projections` still work beside it, through its admin API (src/admin-client/running-gateway.ts).
 */
describe('the CLIs beside a running embedded gateway', function () {
  this.timeout(180_000);
  let openai: FakeOpenAi;
  let gateway: GatewayProcess;

  before(async () => {
    openai = await startFakeOpenAi({ apiKey: FAKE_OPENAI_KEY });
    // no DATABASE_URL: the embedded mode, PGlite in the process's temporary DATA_DIR
    gateway = await startGatewayProcess({}, { openai: openai.url });
  });
  after(async () => {
    await gateway?.stop();
    await openai?.close();
  });

  const run = (script: string, ...args: string[]) =>
    npmRun(script, args, { DATA_DIR: gateway.dataDir, ADMIN_TOKEN: TEST_ADMIN_TOKEN });
  const json = async (script: string, ...args: string[]) => {
    const result = await run(script, ...args);
    expect(result.code, result.stderr).to.equal(0);
    return JSON.parse(result.stdout);
  };

  it('creates an organization and a key, audits and verifies the money, and shows and rebuilds the projections', async () => {
    expect(existsSync(join(gateway.dataDir, 'gateway.json')), 'the gateway announces its admin API').to.equal(true);
    const organization = await json('admin', 'create-organization', '--name', 'Embedded', '--daily-usd', '5');
    expect(organization).to.deep.include({ name: 'Embedded', balance_usd: '0.00', spend_limits: { daily_usd: '5.00', monthly_usd: null } });
    expect(await json('admin', 'add-credits', organization.id, '2', '--idempotency-key', 'once')).to.deep.equal({ organization_id: organization.id, balance_usd: '2.00' });
    const key = await json('admin', 'issue-key', organization.id, '--name', 'cli', '--models', 'openai/gpt-4o-mini', '--rpm', '30');
    expect(key).to.deep.include({ organization_id: organization.id, rpm: 30, models: ['openai/gpt-4o-mini'], status: 'valid' });

    // 1,000 in + 500 out at $0.15/$0.60 per M = $0.00015 + $0.0003 = $0.00045
    openai.enqueue({ usage: { inputTokens: 1_000, outputTokens: 500 } });
    const client = new OpenAI({ apiKey: key.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] });
    // $2 − $0.00045 (settling follows the answer: give it a moment)
    await eventually(async () => expect(await gateway.admin.ok('GET', `/organizations/${organization.id}`)).to.deep.include({ balance_usd: '1.99955', reserved_usd: '0.00' }));

    const today = new Date().toISOString().slice(0, 10);
    const csv = await run('audit', '--org', organization.id, '--format', 'csv');
    expect(csv.code, csv.stderr).to.equal(0);
    expect(csv.stdout).to.equal(`organization_id,day,requests,spend_usd\n${organization.id},${today},1,0.00045\n`);
    const verify = await run('audit', 'verify');
    expect(verify.code, verify.stderr).to.equal(0);
    expect(verify.stdout).to.contain('verified 1 organizations');

    const status = await run('projections', 'status');
    expect(status.code, status.stderr).to.equal(0);
    expect(status.stdout).to.match(/^projection\s+generation\s+status/).and.to.match(/\nledger\s+1\s+active/);
    const rebuild = await run('projections', 'rebuild', 'ledger');
    expect(rebuild.code, rebuild.stderr).to.equal(0);
    expect(rebuild.stdout).to.contain('ledger: generation 2 now serves reads');
    // the rebuilt read model agrees with the log
    const reconcile = await run('audit', '--org', organization.id, '--reconcile');
    expect(reconcile.code, reconcile.stderr).to.equal(0);
    expect(reconcile.stderr).to.contain('no difference');

    const missing = await run('admin', 'show-key', 'key_nothing');
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain('resource_not_found');
  });

  it('says why `projections -- run` has nothing to do there', async () => {
    const worker = await run('projections', 'run');
    expect(worker.code).to.equal(1);
    expect(worker.stderr).to.contain('keeps the read models up to date itself');
  });
});
