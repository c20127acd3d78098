import { expect } from 'chai';
import pg from 'pg';
import { testDatabaseUrl } from '../support/databases.js';
import { npmRunAudit } from '../support/audit-cli.js';

/**
 * After every test of the run (a root hook: mocha runs it once, after the last file), the real
 * `npm run audit -- verify` checks every organization the money tests left in the run's database: the
 * balance equation from the log, against the account state and the read models.
 */
after(async function () {
  this.timeout(120_000);
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  let built: boolean;
  try {
    const { rows } = await client.query(`select 1 from information_schema.tables where table_name = 'projection_checkpoints'`);
    built = rows.length > 0 && (await client.query(`select 1 from projection_checkpoints where projection = 'ledger' and status = 'active'`)).rows.length > 0;
  } finally {
    await client.end();
  }
  // a partial run (MOCHA_SPEC) that started no gateway on the run's database has no ledger to verify
  if (!built) return;
  const result = await npmRunAudit(['verify']);
  expect(result.code, `npm run audit -- verify after the suite:\n${result.stderr}`).to.equal(0);
  expect(result.stdout).to.match(/^verified \d+ organizations/);
});
