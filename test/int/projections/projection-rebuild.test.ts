import { expect } from 'chai';
import { sql } from 'kysely';
import { defineProjection } from '../../../projections/projection.js';
import { listCheckpoints } from '../../../projections/projection-generations.js';
import { ProjectionFailedError, ProjectionRunner } from '../../../projections/projection-runner.js';
import { rebuildProjection } from '../../../projections/rebuild-projection.js';
import { DATABASE_KINDS } from '../../support/databases.js';
import { sampleBalancesProjection, sampleCatalogue } from '../../support/sample-projection.js';
import { eventually } from '../eventstore/contract-helpers.js';
import { appendSampleEvents, dumpTable, emptyLog, expectReadModel, openProjectionKit, resetDatabase, type ProjectionKit } from './projection-test-kit.js';

for (const kind of DATABASE_KINDS) {
  describe(`projection rebuild on ${kind}`, function () {
    this.timeout(30_000);
    let kit: ProjectionKit;
    let live: ProjectionRunner | undefined;
    const startLiveRunner = async () => {
      live = new ProjectionRunner({ database: kit.database, store: kit.store, catalogue: sampleCatalogue, projection: sampleBalancesProjection });
      await live.start();
      await live.caughtUp();
      return live;
    };
    const rebuild = (options: { batchSize?: number; projection?: typeof sampleBalancesProjection } = {}) =>
      rebuildProjection({ database: kit.database, store: kit.store, catalogue: sampleCatalogue, projection: sampleBalancesProjection, ...options });
    const dumpViews = async () => `${await dumpTable(kit.database, 'sample_balances')}\n--\n${await dumpTable(kit.database, 'sample_usage_by_model')}`;
    const schemas = async () =>
      (await sql<{ name: string }>`select nspname as name from pg_namespace where nspname like 'rm\\_%' order by 1`.execute(kit.database.kysely)).rows.map((row) => row.name);

    before(async () => {
      kit = await openProjectionKit(kind);
    });
    after(async () => {
      await kit.dispose();
    });
    beforeEach(async () => {
      await resetDatabase(kit.database);
    });
    afterEach(async () => {
      await live?.stop();
      live = undefined;
    });

    it('rebuilds the same log into byte-identical tables while the old ones keep answering reads', async () => {
      const log = emptyLog();
      await appendSampleEvents(kit.store, log, 80);
      await (await startLiveRunner()).stop();
      const before = await dumpViews();
      expect(before.split('\n')).to.have.length(5 + 1 + 3);

      let finished = false;
      const reads: Array<{ dump: string; duringRebuild: boolean }> = [];
      const reader = (async () => {
        while (!finished) {
          reads.push({ dump: await dumpViews(), duringRebuild: !finished });
          // Let timers run between reads, as requests arriving over HTTP would: PGlite answers on microtasks alone.
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      const result = await rebuild({ batchSize: 5 }).finally(() => (finished = true));
      await reader;

      expect(result.generation).to.equal(2);
      expect(result.eventsProcessed).to.equal(BigInt(log.eventCount));
      expect(result.retired).to.deep.equal([1]);
      // PGlite is one session: a read gets its turn only between the rebuild's own queries and transactions,
      // so there are few of them; on Postgres they run side by side.
      expect(reads.filter((read) => read.duringRebuild).length, 'reads answered while the rebuild ran').to.be.at.least(kind === 'pglite' ? 1 : 3);
      for (const read of reads) expect(read.dump).to.equal(before);
      expect(await dumpViews()).to.equal(before);
      expect(await dumpTable(kit.database, 'rm_sample_balances_2.sample_balances')).to.equal(before.split('\n--\n')[0]);
      expect(await schemas()).to.deep.equal(['rm_sample_balances_2']);
      expect((await listCheckpoints(kit.database.kysely)).map((row) => [row.generation, row.status])).to.deep.equal([[2, 'active']]);
    });

    it('hands over to the running runner without losing the events appended during the rebuild', async () => {
      const log = emptyLog();
      await appendSampleEvents(kit.store, log, 30);
      const runner = await startLiveRunner();
      expect(runner.generation).to.equal(1);
      await Promise.all([rebuild({ batchSize: 10 }), appendSampleEvents(kit.store, log, 30, 30)]);
      await eventually(() => expect(runner.generation).to.equal(2));
      await runner.caughtUp();
      await expectReadModel(kit.database, log);
      expect(await schemas()).to.deep.equal(['rm_sample_balances_2']);
      const [checkpoint] = await listCheckpoints(kit.database.kysely);
      expect(checkpoint?.events_processed).to.equal(BigInt(log.eventCount));
    });

    it('leaves the serving generation in place when the rebuild fails', async () => {
      const log = emptyLog();
      await appendSampleEvents(kit.store, log, 10);
      await (await startLiveRunner()).stop();
      const before = await dumpViews();
      const broken = defineProjection({
        ...sampleBalancesProjection,
        apply: async () => {
          throw new Error('bug in the new code');
        },
      });
      const error = await rebuild({ projection: broken }).catch((rejection: unknown) => rejection);
      expect(error).to.be.instanceOf(ProjectionFailedError);
      expect(await dumpViews()).to.equal(before);
      expect(await schemas()).to.deep.equal(['rm_sample_balances_1']);
      expect((await listCheckpoints(kit.database.kysely)).map((row) => [row.generation, row.status])).to.deep.equal([[1, 'active']]);
    });
  });
}
