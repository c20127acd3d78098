import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * PGlite does not lock its data directory, and two processes writing one directory corrupt it.
 * The embedded mode therefore takes `gateway.lock` (holding its pid) before opening PGlite, and refuses
 * to start while another live process holds it. A lock left by a dead process is taken over.
 */
export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

export interface DataDirLock {
  release(): void;
}

export function lockDataDir(directory: string): DataDirLock {
  mkdirSync(directory, { recursive: true });
  const path = join(directory, 'gateway.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
        throw new DataDirLockedError(
          `data directory ${directory} is in use by process ${holder}; stop it or set DATA_DIR to another directory`,
        );
      }
      rmSync(path, { force: true }); // stale: its process is gone
    }
  }
  throw new DataDirLockedError(`could not lock data directory ${directory}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of the live process (other than this one) holding the data directory, if any. */
export function dataDirHolder(directory: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(join(directory, 'gateway.lock'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const holder = Number.parseInt(text, 10);
  return Number.isInteger(holder) && holder !== process.pid && isAlive(holder) ? holder : undefined;
}
