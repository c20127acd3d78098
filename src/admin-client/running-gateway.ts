import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { dataDirHolder, DataDirLockedError } from '../db/data-dir-lock.js';

/**
 * In the embedded mode one process holds the data directory (PGlite cannot be shared). So that the CLIs
 * (`npm run admin`, `audit`, `projections`) keep working while the gateway runs, the gateway writes where
 * it listens into `DATA_DIR/gateway.json` next to its lock, and a CLI that finds the directory held by
 * that gateway talks to its admin API instead of opening the directory: the same routes, commands and
 * deciders, so the same results.
 */
const ADDRESS_FILE = 'gateway.json';

interface GatewayAddress {
  readonly pid: number;
  readonly url: string;
}

/** Called by the gateway once it listens; the returned function removes the file (at stop). */
export function announceGateway(dataDir: string, url: string): () => Promise<void> {
  const path = join(dataDir, ADDRESS_FILE);
  const address: GatewayAddress = { pid: process.pid, url };
  writeFileSync(path, `${JSON.stringify(address)}\n`, { mode: 0o600 });
  return async function removeGatewayAddress() {
    rmSync(path, { force: true });
  };
}

export interface RunningGateway {
  readonly url: string;
  readonly adminToken: string;
  readonly pid: number;
}

/**
 * The gateway holding the data directory, for a CLI started in the embedded mode; undefined when no
 * process holds it (the CLI opens it itself) or in production mode (every process opens the databases).
 * A directory held by a process that is not a listening gateway (another CLI, a gateway still starting)
 * is refused as before.
 */
export function runningGateway(config: Config): RunningGateway | undefined {
  if (config.DATABASE_URL) return undefined;
  const holder = dataDirHolder(config.DATA_DIR);
  if (holder === undefined) return undefined;
  let address: GatewayAddress | undefined;
  try {
    address = JSON.parse(readFileSync(join(config.DATA_DIR, ADDRESS_FILE), 'utf8')) as GatewayAddress;
  } catch {
    address = undefined;
  }
  if (!address || address.pid !== holder || typeof address.url !== 'string') {
    throw new DataDirLockedError(`data directory ${config.DATA_DIR} is in use by process ${holder}, which is not a gateway serving its admin API (yet); try again, or stop it`);
  }
  const adminToken = config.ADMIN_TOKEN ?? readTokenFile(config.DATA_DIR);
  if (!adminToken) throw new DataDirLockedError(`the gateway at ${address.url} holds ${config.DATA_DIR}; set ADMIN_TOKEN to its admin token to run this command through it`);
  return { url: address.url, adminToken, pid: holder };
}

function readTokenFile(dataDir: string): string | undefined {
  try {
    return readFileSync(join(dataDir, 'admin-token'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
