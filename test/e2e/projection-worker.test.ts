import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { parseUsd } from '../../src/billing/money.js';
import { AdminClient } from '../support/admin-client.js';
import { createScratchDatabase } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startTestGateway } from '../support/test-gateway.js';
import { createUsage } from '../../src/billing/usage.js';

/**
 * PROJECTIONS=off: the gateway leaves the read models to a worker process (`npm run projections -- run`).
 * Its own database, so that no other test's gateway projects for it.
 */
describe('projection worker (gateway with PROJECTIONS=off)', function () {
  this.timeout(60_000);
  let drop: () => Promise<void>;
  let url: string;
  let gateway: Awaited<ReturnType<typeof startTestGateway>>;
  let admin: AdminClient;

  before(async () => {
    ({ url, drop } = await createScratchDatabase('projection_worker'));
    gateway = await startTestGateway({ DATABASE_URL: url, PROJECTIONS: 'off' });
    admin = new AdminClient(gateway.url);
  });
  after(async () => {
    await gateway?.dispose();
    await drop?.();
  });

  function startWorker(): { child: ChildProcessWithoutNullStreams; output: () => string; exited: Promise<number | null> } {
    const child = spawn(process.execPath, ['--import', 'tsx', 'projections/cli.ts', 'run'], {
      env: { ...process.env, DATABASE_URL: url, EVENTSTORE_URL: '', LOG_LEVEL: 'silent' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return { child, output: () => output, exited: new Promise((resolve) => child.on('close', resolve)) };
  }

  it('serves empty reports until a worker runs, which then fills them and stops cleanly on SIGTERM', async () => {
    const { orgId, keyId } = await admin.organizationWithKey({ credits: '10' });
    const owner = { keyId, employeeId: null, teamId: null, spaceId: null };
    const deadline = new Date(Date.now() + 600_000);
    await gateway.accounts.execute(orgId, { type: 'ReserveFunds', reservationId: 'gen-w1', endpoint: 'chat', owner, model: 'openai/gpt-4o-mini', category: 'text', amount: parseUsd('1'), price: { version: null, serviceTier: null }, deadline, limits: {}, accessRevisions: {} }, 'gen-w1');
    await gateway.accounts.execute(orgId, { type: 'SettleReservation', reservationId: 'gen-w1', cost: parseUsd('0.25'), usage: createUsage({ inputTokens: 10, outputTokens: 5 }) }, 'gen-w1');

    // The tables exist from the gateway's start (the report answers), but nothing fills them.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await admin.ok('GET', `/organizations/${orgId}/spend?group_by=key`)).data).to.deep.equal([]);

    const worker = startWorker();
    try {
      await eventually(async () => expect(worker.output()).to.contain('following the event log for ledger, access'), 20_000);
      await eventually(async () => {
        const report = await admin.ok('GET', `/organizations/${orgId}/spend?group_by=key`);
        expect(report.data.map((row: { key: string; cost_usd: string; requests: number }) => [row.key, row.cost_usd, row.requests])).to.deep.equal([[keyId, '0.25', 1]]);
      }, 10_000);
    } finally {
      worker.child.kill('SIGTERM');
    }
    expect(await worker.exited).to.equal(0);
    expect(worker.output().trimEnd().split('\n').at(-1)).to.equal('stopped');
  });
});
