/**
 * What sharing one account costs two gateway instances, apart from HTTP (not a test):
 * `npx tsx ops/bench/shared-account.ts`
 *
 * Two account services, each with its own event store and connection pool on one Postgres database, as two
 * gateway instances have; each runs reserve+settle pairs with 32 in flight for BENCH_SECONDS (default 6).
 * Rounds alternate between one organization for both ("shared"), the same with the account link between
 * the two ("linked": an owner per account, src/ledger/owners; the link's TCP connection runs inside this
 * process, so both its ends are counted) and one organization each ("apart"), so a slow spell of the
 * machine hits every kind. For each round it prints the pairs a second, this process's CPU a pair (user +
 * system, both services together), and per pair: appends made optimistically, batches decided under the
 * stream lock, conflicts, and the events each service read of the other's (its catch-up). The difference
 * between the kinds of round is what the account's sharing costs; docs/performance-log.md ("Two instances on
 * one organization", "An owner per account") has the figures.
 *
 * Env: BENCH_SECONDS, BENCH_ROUNDS (default 2 of each kind), BENCH_KINDS (default shared,linked,apart),
 * BENCH_POSTGRES_URL.
 */
import { systemClock } from '../../src/clock.js';
import { migrateToLatest, openPostgres } from '../../src/db/database.js';
import { PostgresEventStore } from '../../src/eventstore/postgres/postgres-event-store.js';
import { WrongExpectedRevisionError } from '../../src/eventstore/event-store.js';
import { AccountService } from '../../src/ledger/account-service.js';
import { AccountSnapshotStore } from '../../src/ledger/account-snapshot.js';
import type { Accounts } from '../../src/ledger/accounts.js';
import { OwnedAccounts } from '../../src/ledger/owners/owned-accounts.js';
import { createUsage } from '../../src/billing/usage.js';
import { withBenchDatabase } from './lib/bench-database.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const IN_FLIGHT = 32;
const ALL_KINDS = ['shared', 'linked', 'apart'] as const;
/** BENCH_KINDS=linked,apart runs only those kinds of round (for a profile of one). */
const KINDS = ALL_KINDS.filter((kind) => (process.env.BENCH_KINDS ?? ALL_KINDS.join(',')).split(',').includes(kind));

interface Counts {
  optimistic: number;
  locked: number;
  conflicts: number;
  othersEvents: number;
}

/** The Postgres store, counting what the account service asks of it. */
class CountingStore extends PostgresEventStore {
  counts: Counts = { optimistic: 0, locked: 0, conflicts: 0, othersEvents: 0 };

  override async append(...args: Parameters<PostgresEventStore['append']>): ReturnType<PostgresEventStore['append']> {
    this.counts.optimistic++;
    try {
      return await super.append(...args);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) this.counts.conflicts++;
      throw error;
    }
  }

  override withStreamLock<T>(...[streamId, work]: Parameters<PostgresEventStore['withStreamLock']>): Promise<T> {
    this.counts.locked++;
    return super.withStreamLock(streamId, (stream) =>
      work({
        read: async (options) => {
          const events = await stream.read(options);
          this.counts.othersEvents += events.length;
          return events;
        },
        append: (events, options) => stream.append(events, options),
      }),
    ) as Promise<T>;
  }
}

await withBenchDatabase('shared_account', async (url) => {
  const databases = [await openPostgres({ url, poolSize: 10 }), await openPostgres({ url, poolSize: 10 })];
  await migrateToLatest(databases[0]!);
  const stores = databases.map((database) => new CountingStore(database));
  try {
    const kinds = Array.from({ length: ROUNDS }, () => KINDS).flat();
    for (const [round, kind] of kinds.entries()) {
      const locals = databases.map(
        (database, index) => new AccountService({ store: stores[index]!, snapshots: new AccountSnapshotStore(database.kysely), clock: systemClock }),
      );
      const linked =
        kind === 'linked'
          ? await Promise.all(
              locals.map((local, index) =>
                OwnedAccounts.start({ local, db: databases[index]!.kysely, host: '127.0.0.1', port: 0, advertisedHost: '127.0.0.1', secret: 'shared-account-bench-link' }),
              ),
            )
          : [];
      const services: Accounts[] = linked.length > 0 ? linked : locals;
      const orgOf = (instance: number) => (kind === 'apart' ? `org_apart${round}x${instance}` : `org_${kind}${round}`);
      for (const [instance, service] of services.entries()) {
        await service.execute(orgOf(instance), { type: 'AddCredits', amount: 10n ** 15n }, `admin:bench${round}x${instance}`);
      }
      for (const [instance, service] of services.entries()) await service.balance(orgOf(instance));
      for (const store of stores) store.counts = { optimistic: 0, locked: 0, conflicts: 0, othersEvents: 0 };

      let pairs = 0;
      let sequence = 0;
      const deadline = Date.now() + SECONDS * 1000;
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      await Promise.all(
        services.flatMap((service, instance) =>
          Array.from({ length: IN_FLIGHT }, async (_, lane) => {
            const org = orgOf(instance);
            while (Date.now() < deadline) {
              const id = `gen-r${round}x${instance}x${sequence++}`;
              const owner = { keyId: `key_${lane % 10}`, employeeId: null, teamId: null, spaceId: null };
              const deadlineAt = new Date(Date.now() + 600_000);
              const limits = { key: { daily: 10n ** 14n } };
              await service.execute(org, { type: 'ReserveFunds', reservationId: id, endpoint: 'chat', owner, model: 'openai/gpt-4o-mini', category: 'text', amount: 1_000_000n, price: { version: null, serviceTier: null }, deadline: deadlineAt, limits, accessRevisions: {} }, id);
              await service.execute(org, { type: 'SettleReservation', reservationId: id, cost: 400_000n, usage: createUsage({ inputTokens: 100, outputTokens: 50 }) }, id);
              pairs++;
            }
          }),
        ),
      );
      const cpu = process.cpuUsage(cpuBefore);
      for (const owned of linked) await owned.close();
      const seconds = (performance.now() - started) / 1000;
      const per = (key: keyof Counts) => (stores.reduce((sum, store) => sum + store.counts[key], 0) / pairs).toFixed(3);
      console.log(
        `${kind.padEnd(6)} ${String(Math.round(pairs / seconds)).padStart(6)} pairs/s, CPU ${Math.round((cpu.user + cpu.system) / pairs)} µs a pair; ` +
          `a pair: ${per('optimistic')} optimistic appends, ${per('locked')} locked batches, ${per('conflicts')} conflicts, ${per('othersEvents')} events of the other read`,
      );
    }
  } finally {
    for (const store of stores) await store.close();
    for (const database of databases) await database.close();
  }
});
