import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openPglite } from '../../../src/db/database.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { prepareDataDirApart } from '../../../src/db/prepare-data-dir.js';

/**
 * A new embedded data directory is created and migrated by a child process (src/db/prepare-data-dir.ts), so
 * that the gateway's process opens it as an existing one: real PGlite on a real directory.
 */
describe('an embedded data directory created apart (real PGlite)', function () {
  this.timeout(120_000);
  let directory: string;
  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), 'gw-prepare-'))));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('creates and migrates a new directory in a child process, and the gateway process opens it migrated', async () => {
    await prepareDataDirApart(join(directory, 'pglite'));
    expect(existsSync(join(directory, 'pglite', 'PG_VERSION'))).to.equal(true);
    const database = await openPglite({ dataDir: directory });
    try {
      const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.kysely);
      expect(rows.map((row) => row.name)).to.deep.equal(Object.keys(migrations).sort());
    } finally {
      await database.close();
    }
  });

  it("says what failed when the child cannot create it, with the child's error", async () => {
    // a file where the directory should be
    writeFileSync(join(directory, 'pglite'), 'not a directory');
    const failure = await prepareDataDirApart(join(directory, 'pglite')).catch((error: unknown) => error);
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).message).to.match(/creating the data directory .*pglite failed \(exit 1\): .+/s);
  });
});
