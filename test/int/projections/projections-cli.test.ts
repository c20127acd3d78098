import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { runProjectionsCommand, USAGE } from '../../../projections/projections-command.js';
import { projections as registered } from '../../../projections/registry.js';
import { ProjectionRunner } from '../../../projections/projection-runner.js';
import { createScratchDatabase } from '../../support/databases.js';
import { eventually } from '../../support/eventually.js';
import { creditsAdded, sampleBalancesProjection, sampleCatalogue } from '../../support/sample-projection.js';
import { appendSampleEvents, emptyLog, expectReadModel, openProjectionKit, resetDatabase, type ProjectionKit } from './projection-test-kit.js';

describe('projections CLI', function () {
  this.timeout(30_000);
  let kit: ProjectionKit;
  before(async () => {
    kit = await openProjectionKit('postgres');
  });
  after(async () => {
    await kit.dispose();
  });

  async function run(...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
    return runUntil(new Promise<void>(() => {}), ...args);
  }
  async function runUntil(untilStopped: Promise<void>, ...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runProjectionsCommand(args, {
      database: kit.database,
      store: kit.store,
      catalogue: sampleCatalogue,
      projections: [sampleBalancesProjection],
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      untilStopped,
    });
    return { code, out, err };
  }
  const columns = (line: string | undefined) => (line ?? '').split(/\s{2,}/);

  it('prints each projection with its checkpoint and lag, and rebuilds it', async () => {
    const notStarted = await run('status');
    expect(notStarted.code).to.equal(0);
    expect(columns(notStarted.out[0])).to.deep.equal(['projection', 'generation', 'status', 'version', 'processed', 'behind', 'behind_ms', 'checkpoint', 'updated']);
    expect(columns(notStarted.out[1]).slice(0, 3)).to.deep.equal(['sample_balances', '-', 'not started']);

    const log = emptyLog();
    await appendSampleEvents(kit.store, log, 10);
    const runner = new ProjectionRunner({ database: kit.database, store: kit.store, catalogue: sampleCatalogue, projection: sampleBalancesProjection });
    await runner.start();
    await runner.caughtUp();
    await runner.stop();
    const processed = log.eventCount;
    await appendSampleEvents(kit.store, log, 3, 10);

    const behind = columns((await run('status')).out[1]);
    expect(behind.slice(0, 6)).to.deep.equal(['sample_balances', '1', 'active', '1', String(processed), String(log.eventCount - processed)]);
    expect(Number(behind[6])).to.be.greaterThan(0);
    expect(behind[7]).to.equal(runner.position);

    const rebuilt = await run('rebuild', 'sample_balances');
    expect(rebuilt.code).to.equal(0);
    expect(rebuilt.out.at(-1)).to.match(new RegExp(`^sample_balances: generation 2 now serves reads \\(${log.eventCount} events in .*; dropped generation 1$`));
    await expectReadModel(kit.database, log);
    const after = columns((await run('status')).out[1]);
    expect(after.slice(0, 7)).to.deep.equal(['sample_balances', '2', 'active', '1', String(log.eventCount), '0', '0']);
  });

  it('says which projections exist when asked for an unknown one, and prints the usage for anything else', async () => {
    const unknown = await run('rebuild', 'nope');
    expect(unknown.code).to.equal(1);
    expect(unknown.err).to.deep.equal(['unknown projection nope; known: sample_balances']);
    for (const args of [[], ['frobnicate'], ['status', 'extra'], ['run', 'ledger']]) {
      const wrong = await run(...args);
      expect(wrong.code, args.join(' ')).to.equal(2);
      expect(wrong.err).to.deep.equal(USAGE);
    }
  });

  it('runs as a worker that follows the log until it is stopped', async () => {
    await resetDatabase(kit.database);
    const log = emptyLog();
    await appendSampleEvents(kit.store, log, 5);
    let stop!: () => void;
    const worker = runUntil(new Promise<void>((resolve) => (stop = resolve)), 'run');
    await appendSampleEvents(kit.store, log, 5, 5);
    await eventually(() => expectReadModel(kit.database, log));
    stop();
    const { code, out, err } = await worker;
    expect({ code, out, err }).to.deep.equal({ code: 0, out: ['following the event log for sample_balances; stop with SIGTERM or Ctrl-C', 'stopped'], err: [] });
  });

  it('stops the worker with exit code 1 when a projection cannot apply an event', async () => {
    await resetDatabase(kit.database);
    await kit.store.append('account-x', [{ ...creditsAdded(5n), id: randomUUID(), type: 'FundsTeleported' }], { expectedRevision: 'any' });
    const { code, out, err } = await runUntil(new Promise<void>(() => {}), 'run');
    expect(code).to.equal(1);
    expect(out.at(-1)).to.equal('stopped after a projection failed');
    expect(err).to.have.length(1);
    expect(err[0]).to.match(/^sample_balances stopped: .*account-x@0 \(FundsTeleported\)/);
  });

  it('runs as `npm run projections` against DATABASE_URL', async () => {
    const scratch = await createScratchDatabase('projections_cli');
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'projections/cli.ts', 'status'], {
        env: { ...process.env, DATABASE_URL: scratch.url, EVENTSTORE_URL: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(stderr).to.equal('');
      expect(code).to.equal(0);
      // Whatever the features registered, each shows as never run on this fresh database.
      const lines = stdout.trimEnd().split('\n');
      if (registered.length === 0) expect(lines).to.deep.equal(['no projections']);
      else {
        expect(columns(lines[0])[0]).to.equal('projection');
        expect(lines.slice(1).map((line) => columns(line).slice(0, 3))).to.deep.equal(registered.map((projection) => [projection.name, '-', 'not started']));
      }
    } finally {
      await scratch.drop();
    }
  });
});
