import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chownSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { freePort } from '../../ops/free-port.js';

/**
 * `npm test` needs a Postgres and a Redis. It uses the ones that answer (defaults 127.0.0.1:5432 and
 * :6379, or TEST_POSTGRES_URL / TEST_REDIS_URL); when one does not answer, it starts its own from the
 * Debian packages (installing them with apt-get when missing and running as root), in a temporary
 * directory on a free port, and stops it after the run.
 */
export interface TestServices {
  postgresUrl: string;
  redisUrl: string;
  stop(): Promise<void>;
}

export async function ensureTestServices(log: (line: string) => void): Promise<TestServices> {
  const stops: Array<() => Promise<void>> = [];
  const postgresUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const services: TestServices = {
    postgresUrl,
    redisUrl,
    stop: async () => {
      for (const stop of stops.reverse()) await stop();
    },
  };
  if (!(await postgresAnswers(postgresUrl))) {
    log(`Postgres does not answer at ${redact(postgresUrl)}; starting a private one`);
    const started = await startPrivatePostgres();
    services.postgresUrl = started.url;
    stops.push(started.stop);
  }
  if (!(await redisAnswers(redisUrl))) {
    log(`Redis does not answer at ${redisUrl}; starting a private one`);
    const started = await startPrivateRedis();
    services.redisUrl = started.url;
    stops.push(started.stop);
  }
  return services;
}

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

function aptInstall(packageName: string): void {
  if (process.getuid?.() !== 0) throw new Error(`${packageName} is not installed and this run is not root; install it or point the tests at a server`);
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', packageName]]) {
    const result = spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (result.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed`);
  }
}

function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((version) => join(root, version, 'bin')).find((bin) => existsSync(join(bin, 'initdb')));
}

async function startPrivatePostgres(): Promise<{ url: string; stop: () => Promise<void> }> {
  let bin = postgresBinaries();
  if (!bin) {
    aptInstall('postgresql');
    bin = postgresBinaries();
    if (!bin) throw new Error('postgresql was installed but initdb was not found');
  }
  const directory = mkdtempSync(join(tmpdir(), 'gw-test-pg-'));
  const port = await freePort();
  // initdb refuses to run as root; the Debian package creates the postgres user.
  const asPostgres = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
  if (asPostgres.length) chownSync(directory, uidOf('postgres'), gidOf('postgres'));
  const run = (command: string, args: string[]) => {
    const [file, ...rest] = [...asPostgres, command, ...args];
    const result = spawnSync(file!, rest, { stdio: 'pipe', encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
  };
  run(join(bin, 'initdb'), ['-D', join(directory, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  run(join(bin, 'pg_ctl'), [
    '-D', join(directory, 'data'), '-l', join(directory, 'log'), '-w', '-t', '60',
    '-o', `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
    'start',
  ]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      try {
        run(join(bin!, 'pg_ctl'), ['-D', join(directory, 'data'), '-m', 'fast', '-w', 'stop']);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
  };
}

async function startPrivateRedis(): Promise<{ url: string; stop: () => Promise<void> }> {
  const binary = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((path) => existsSync(path));
  if (!binary) aptInstall('redis-server');
  const directory = mkdtempSync(join(tmpdir(), 'gw-test-redis-'));
  const port = await freePort();
  const child: ChildProcess = spawn(binary ?? '/usr/bin/redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', directory], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 50 && !(await redisAnswers(url)); attempt++) await new Promise((r) => setTimeout(r, 100));
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

function uidOf(user: string): number {
  return Number(spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim());
}
function gidOf(user: string): number {
  return Number(spawnSync('id', ['-g', user], { encoding: 'utf8' }).stdout.trim());
}
function redact(url: string): string {
  return url.replace(/:[^:@/]+@/, ':***@');
}
