import { dirname } from 'node:path';
import { migrateToLatest, openPglite } from './database.js';

/** The child of `prepareDataDirApart`: creates and migrates the data directory given, then exits. */
const pgliteDir = process.argv[2];
if (!pgliteDir) throw new Error('usage: prepare-data-dir-main <data directory>/pglite');
// the parent holds the data directory's lock, and waits for this process to end before it opens the directory
const database = await openPglite({ dataDir: dirname(pgliteDir), preparingForParent: true });
await migrateToLatest(database);
await database.close();
