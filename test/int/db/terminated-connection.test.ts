import { expect } from 'chai';
import { sql } from 'kysely';
import pg from 'pg';
import { openPostgres, type Database } from '../../../src/db/database.js';
import { testDatabaseUrl } from '../../support/databases.js';

/**
 * A connection the server ends (pg_terminate_backend, a failover, an idle-session timeout) fails the
 * statement it was running with a FATAL error, and the server closes the socket a moment later. The pool
 * must not hand that connection to the next statement in between: with one connection in the pool, the
 * statement right after the failure runs on a fresh one and succeeds.
 */
describe('Postgres pool: a connection the server ended is not reused', function () {
  this.timeout(20_000);
  let database: Database;
  let admin: pg.Client;

  before(async () => {
    database = await openPostgres({ url: testDatabaseUrl(), poolSize: 1, applicationName: 'terminated-connection-test' });
    admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
  });
  after(async () => {
    await admin?.end();
    await database?.close();
  });

  for (const timeoutMs of [undefined, 5_000]) {
    it(`runs the next statement on a fresh connection (statement timeout ${timeoutMs ?? 'unset'})`, async () => {
      const bounded = timeoutMs === undefined ? database : await openPostgres({ url: testDatabaseUrl(), poolSize: 1, timeoutMs });
      try {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(bounded.kysely);
        const pid = rows[0]!.pid;
        const sleeping = sql`select pg_sleep(10)`.execute(bounded.kysely).then(
          () => undefined,
          (error: unknown) => error,
        );
        await until(async () => (await admin.query(`select 1 from pg_stat_activity where pid = $1 and query like '%pg_sleep%'`, [pid])).rowCount === 1);
        await admin.query('select pg_terminate_backend($1)', [pid]);
        expect(await sleeping, 'the statement on the ended connection fails').to.have.property('severity', 'FATAL');
        // right away, before the socket's end is seen: the only pooled connection must not be the ended one
        const next = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(bounded.kysely);
        expect(next.rows[0]!.pid).to.not.equal(pid);
      } finally {
        if (bounded !== database) await bounded.close();
      }
    });
  }
});

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not met in 2 s');
}
