import { readFileSync } from 'node:fs';
import pg from 'pg';

/**
 * What the OS says a process has used: CPU (user + system, from /proc/<pid>/stat, in ticks of 1/100 s)
 * and memory (/proc/<pid>/status). CPU read this way is the figure that survives a busy machine: other
 * processes slow a target down but do not add to its CPU time. Linux only; undefined elsewhere.
 */
const TICKS_PER_SECOND = 100;

/** CPU seconds used so far by each process of `pids` together (a process that is gone counts 0). */
export function cpuSecondsOf(pids: readonly number[]): Map<number, number> {
  const seconds = new Map<number, number>();
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      seconds.set(pid, (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND);
    } catch {
      // gone, or not Linux
    }
  }
  return seconds;
}

/** CPU seconds spent between two readings, by the processes present in the second one (new ones from 0). */
export function cpuSpent(before: Map<number, number>, after: Map<number, number>): number | undefined {
  if (after.size === 0) return undefined;
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/** The process's peak resident set (VmHWM) or current one (VmRSS), in bytes. */
export function memoryOf(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds the machine has spent busy so far (every core). */
export function machineCpuSeconds(): number | undefined {
  try {
    const [, user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
    return (user! + nice! + system! + irq! + softirq! + steal!) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * The server processes (backends) serving connections to the databases of `databaseUrls`. Only these are
 * counted as the gateway's Postgres CPU: the server is shared with other work on this machine, and its
 * background writers (WAL, checkpoints) serve every database at once.
 */
export async function postgresBackendPids(adminUrl: string, databaseUrls: readonly string[]): Promise<number[]> {
  if (databaseUrls.length === 0) return [];
  const names = databaseUrls.map((url) => new URL(url).pathname.slice(1));
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = any($1) and pid <> pg_backend_pid()', [names]);
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}
