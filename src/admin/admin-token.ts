import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBase62 } from '../ids/random-id.js';

export interface AdminTokenResolution {
  /** Undefined: the admin API is off (production mode without ADMIN_TOKEN). */
  token: string | undefined;
  /** True only on the start that generated the token; the caller prints it that once. */
  generated: boolean;
}

/**
 * ADMIN_TOKEN wins. In embedded mode without it, a token is generated on first start and kept in
 * `DATA_DIR/admin-token` (mode 0600), so the same token works after a restart and is printed only once.
 * In production mode without it the admin HTTP API is off; the admin CLI still works on the machine.
 */
export function resolveAdminToken(configured: string | undefined, embeddedDataDir: string | undefined): AdminTokenResolution {
  if (configured) return { token: configured, generated: false };
  if (!embeddedDataDir) return { token: undefined, generated: false };
  const path = join(embeddedDataDir, 'admin-token');
  try {
    return { token: readFileSync(path, 'utf8').trim(), generated: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = `gw-admin-${randomBase62(40)}`;
  writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, generated: true };
}
