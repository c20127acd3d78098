import { expect } from 'chai';
import { Migrator, sql } from 'kysely';
import { migrateToLatest, openPostgres, type Database } from '../../../src/db/database.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { createScratchDatabase } from '../../support/databases.js';

/**
 * A database that an earlier release migrated must upgrade at the next start. kysely refuses to run a
 * migration whose name sorts before one already applied ("corrupted migrations"), so a new migration must
 * sort after every released one: this test starts from the released set and migrates to the latest.
 */
const RELEASED = ['0001-event-store', '0002-projection-checkpoints', '0100-account-snapshots'];

describe('schema migrations: upgrading a database of an earlier release', function () {
  this.timeout(20_000);
  let drop: () => Promise<void>;
  let database: Database;

  before(async () => {
    const scratch = await createScratchDatabase('migrate');
    drop = scratch.drop;
    database = await openPostgres({ url: scratch.url, poolSize: 2 });
  });

  after(async () => {
    await database?.close();
    await drop?.();
  });

  it('applies the newer migrations after the released ones, and then appends through the stream lock', async () => {
    const released = Object.fromEntries(Object.entries(migrations).filter(([name]) => RELEASED.includes(name)));
    expect(Object.keys(released)).to.deep.equal(RELEASED);
    const { error } = await new Migrator({ db: database.kysely, provider: { getMigrations: async () => released } }).migrateToLatest();
    expect(error).to.equal(undefined);

    await migrateToLatest(database);

    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.kysely);
    expect(rows.map((row) => row.name)).to.deep.equal(Object.keys(migrations).sort());
    const { rows: functions } = await sql<{ proname: string }>`select proname from pg_proc where proname = 'append_events_locked'`.execute(database.kysely);
    expect(functions).to.have.length(1);
  });
});
