import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { UnknownEventTypeError } from '../../../src/eventstore/event-catalogue.js';
import { defineProjection } from '../../../projections/projection.js';
import { readCheckpoint } from '../../../projections/projection-generations.js';
import { ProjectionFailedError, ProjectionRunner, ProjectionVersionError } from '../../../projections/projection-runner.js';
import { measureLag } from '../../../projections/projection-lag.js';
import { DATABASE_KINDS } from '../../support/databases.js';
import { creditsAdded, sampleBalancesProjection, sampleCatalogue } from '../../support/sample-projection.js';
import { eventually, sleep } from '../eventstore/contract-helpers.js';
import { appendSampleEvents, emptyLog, expectReadModel, openProjectionKit, resetDatabase, type ProjectionKit } from './projection-test-kit.js';

for (const kind of DATABASE_KINDS) {
  describe(`projection runner on ${kind}`, function () {
    this.timeout(20_000);
    let kit: ProjectionKit;
    const runners: ProjectionRunner[] = [];
    const runner = (overrides: Partial<ConstructorParameters<typeof ProjectionRunner>[0]> = {}) => {
      const created = new ProjectionRunner({
        database: kit.database,
        store: kit.store,
        catalogue: sampleCatalogue,
        projection: sampleBalancesProjection,
        batchSize: 50,
        ...overrides,
      });
      runners.push(created);
      return created;
    };

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
      await Promise.all(runners.splice(0).map((started) => started.stop()));
    });

    it('catches up from the start, then follows live appends, with the checkpoint stored alongside the rows', async () => {
      const log = emptyLog();
      await appendSampleEvents(kit.store, log, 40);
      const projection = runner();
      await projection.start();
      await projection.caughtUp();
      await expectReadModel(kit.database, log);
      await appendSampleEvents(kit.store, log, 10, 40);
      await eventually(() => expectReadModel(kit.database, log));
      await projection.caughtUp();
      const checkpoint = await readCheckpoint(kit.database.kysely, 'sample_balances', 1);
      expect(checkpoint?.position).to.equal(await kit.store.headPosition());
      expect(checkpoint?.events_processed).to.equal(BigInt(log.eventCount));
      expect(await projection.lag()).to.deep.equal({ eventsBehind: 0, eventsBehindCapped: false, msBehind: 0 });
    });

    it('reports its lag in events and milliseconds while stopped, and resumes without applying anything twice', async () => {
      const log = emptyLog();
      await appendSampleEvents(kit.store, log, 20);
      const first = runner();
      await first.start();
      await first.caughtUp();
      await first.stop();
      const before = log.eventCount;
      await appendSampleEvents(kit.store, log, 7, 20);
      await sleep(60);
      const lag = await measureLag(kit.store, (await readCheckpoint(kit.database.kysely, 'sample_balances', 1))!.position);
      expect(lag.eventsBehind).to.equal(log.eventCount - before);
      expect(lag.msBehind).to.be.at.least(60);
      const second = runner();
      await second.start();
      await second.caughtUp();
      await expectReadModel(kit.database, log);
    });

    it('lets only one of two concurrent runners write each batch', async () => {
      const log = emptyLog();
      await appendSampleEvents(kit.store, log, 60);
      const [a, b] = [runner({ batchSize: 20 }), runner({ batchSize: 20 })];
      await Promise.all([a.start(), b.start()]);
      // More appends while both run, from several writers at once.
      await Promise.all([0, 1, 2].map((writer) => appendSampleEvents(kit.store, log, 20, 100 + writer * 20)));
      await Promise.all([a.caughtUp(), b.caughtUp()]);
      // Both started from the start of the log: without the checkpoint compare-and-set every sum would double.
      await expectReadModel(kit.database, log);
      expect((await readCheckpoint(kit.database.kysely, 'sample_balances', 1))?.events_processed).to.equal(BigInt(log.eventCount));
      expect(a.restarts + b.restarts, 'the runners competed for batches').to.be.greaterThan(0);
    });

    it('stops at an event type no feature registers, reports it, and keeps its checkpoint just before it', async () => {
      const log = emptyLog();
      await appendSampleEvents(kit.store, log, 5);
      const lastGood = await kit.store.headPosition();
      await kit.store.append('account-x', [{ ...creditsAdded(5n), id: randomUUID(), type: 'FundsTeleported' }], { expectedRevision: 'any' });
      await kit.store.append('account-x', [creditsAdded(7n)], { expectedRevision: 'any' });
      const errors: ProjectionFailedError[] = [];
      const projection = runner({ onError: (error) => errors.push(error) });
      await projection.start();
      await eventually(() => expect(errors).to.have.length(1));
      expect(errors[0]).to.be.instanceOf(ProjectionFailedError);
      expect(errors[0]!.cause).to.be.instanceOf(UnknownEventTypeError);
      expect(errors[0]!.message).to.contain('account-x@0 (FundsTeleported)');
      const failed = await projection.caughtUp().then(
        () => 'resolved',
        (error: unknown) => error,
      );
      expect(failed).to.equal(errors[0]);
      await expectReadModel(kit.database, log);
      expect((await readCheckpoint(kit.database.kysely, 'sample_balances', 1))?.position).to.equal(lastGood);
    });

    it('with `streams`, reads only those streams, and its checkpoint follows the log past the others', async () => {
      // An event of a type nobody knows, in a stream it does not read: a runner of the whole log would stop at it.
      const foreign = () => ({ ...creditsAdded(5n), id: randomUUID(), type: 'ThingOfAnotherFeature' });
      const accountsOnly = defineProjection({ ...sampleBalancesProjection, streams: ['account-'] });
      const log = emptyLog();
      await appendSampleEvents(kit.store, log, 10);
      await kit.store.append('other-1', [foreign(), foreign()], { expectedRevision: 'any' });
      const errors: ProjectionFailedError[] = [];
      const first = runner({ projection: accountsOnly, readIntervalMs: 20, onError: (error) => errors.push(error) });
      await first.start();
      await first.caughtUp();
      await expectReadModel(kit.database, log);
      const checkpoint = await readCheckpoint(kit.database.kysely, 'sample_balances', 1);
      expect(checkpoint?.position, 'past the other stream').to.equal(await kit.store.headPosition());
      expect(checkpoint?.events_processed, 'its own events only').to.equal(BigInt(log.eventCount));
      // Following live: only other streams are written, and the checkpoint moves on its own.
      await kit.store.append('other-1', [foreign()], { expectedRevision: 'any' });
      await kit.store.append('other-2', [foreign()], { expectedRevision: 'any' });
      const head = await kit.store.headPosition();
      await eventually(async () => expect((await readCheckpoint(kit.database.kysely, 'sample_balances', 1))?.position).to.equal(head));
      expect(await first.lag()).to.deep.equal({ eventsBehind: 0, eventsBehindCapped: false, msBehind: 0 });
      await appendSampleEvents(kit.store, log, 3, 10);
      await kit.store.append('other-1', [foreign()], { expectedRevision: 'any' });
      await first.caughtUp();
      expect((await readCheckpoint(kit.database.kysely, 'sample_balances', 1))?.position, 'the batch and what follows it').to.equal(await kit.store.headPosition());
      await first.stop();
      // A restart resumes from there and applies nothing twice.
      await appendSampleEvents(kit.store, log, 2, 13);
      const second = runner({ projection: accountsOnly, onError: (error) => errors.push(error) });
      await second.start();
      await second.caughtUp();
      await expectReadModel(kit.database, log);
      expect((await readCheckpoint(kit.database.kysely, 'sample_balances', 1))?.events_processed).to.equal(BigInt(log.eventCount));
      expect(errors).to.deep.equal([]);
    });

    it('rolls back the whole batch when the row updates fail, and says on which event', async () => {
      const log = emptyLog();
      await appendSampleEvents(kit.store, log, 3);
      const projection = runner();
      await projection.start();
      await projection.caughtUp();
      await projection.stop();
      await kit.store.append('account-y', [creditsAdded(1n), { ...creditsAdded(2n), data: { amount: '2', source: 'x'.repeat(10) } }], { expectedRevision: 'any' });
      const errors: ProjectionFailedError[] = [];
      const broken = runner({
        onError: (error) => errors.push(error),
        projection: defineProjection({
          ...sampleBalancesProjection,
          apply: async (trx, event) => {
            await sampleBalancesProjection.apply(trx, event);
            if (event.type === 'SampleCreditsAdded' && event.data.source.length === 10) throw new Error('bug in the row updates');
          },
        }),
      });
      await broken.start();
      await eventually(() => expect(errors).to.have.length(1));
      expect(errors[0]!.message).to.match(/failed to apply account-y@1 \(SampleCreditsAdded\): bug in the row updates/);
      await expectReadModel(kit.database, log); // account-y@0, in the same batch, was rolled back with it
    });

    it('refuses tables that another version of the projection built', async () => {
      const first = runner();
      await first.start();
      await first.stop();
      const newer = runner({ projection: { ...sampleBalancesProjection, version: 2 } });
      const error = await newer.start().catch((rejection: unknown) => rejection);
      expect(error).to.be.instanceOf(ProjectionVersionError);
      expect((error as Error).message).to.contain('npm run projections -- rebuild sample_balances');
    });
  });
}
