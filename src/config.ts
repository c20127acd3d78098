import { z } from 'zod';

/**
 * Every setting of the gateway, read once from the environment at start.
 * A bad value stops the process with one line naming the variable (see `ConfigError`).
 * Which adapters run follows from what is set: DATABASE_URL → Postgres, else PGlite in DATA_DIR;
 * EVENTSTORE_URL → EventStoreDB; REDIS_URL → Redis rate limits and BullMQ jobs.
 */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const optionalUrl = (protocols: readonly string[]) =>
  z
    .string()
    .trim()
    .min(1)
    .refine((value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    }, `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`)
    .optional();

const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().trim().min(1).default('./.data'),
  DATABASE_URL: optionalUrl(['postgres:', 'postgresql:']),
  EVENTSTORE_URL: optionalUrl(['esdb:', 'esdb+discover:', 'kurrentdb:', 'kdb:', 'kurrent:']),
  /**
   * How long one Postgres statement, or getting a connection for it, may take (src/db/database.ts): a
   * database that stalls answers a request 503 within about this (plus half a second when the server
   * cannot even cancel the statement), never a hung request.
   */
  DATABASE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  REDIS_URL: optionalUrl(['redis:', 'rediss:']),
  REDIS_PREFIX: z.string().trim().min(1).default('gw:'),
  /** What a model request gets while Redis cannot be reached (src/ratelimit/outage-aware-rate-limiter.ts). */
  REDIS_OUTAGE: z.enum(['fail-closed', 'fail-open']).default('fail-closed'),
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** A bearer token for `GET /metrics` alone, so the scraper need not hold the admin token (src/metrics). */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  CATALOG_FILE: z.string().trim().min(1).default('ops/catalog.example.yaml'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  /**
   * How long a client may take to send a request's headers, and the whole request with its body, before the
   * connection is closed (Node's headersTimeout and requestTimeout, checked every second): a client that
   * trickles its request, or opens a connection and sends nothing, holds a socket for that long at most.
   * The answer is not bound by them (a stream may run as long as the provider does).
   */
  CLIENT_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  CLIENT_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
  /**
   * `in-process`: the gateway keeps the read models up to date itself. `off`: a separate worker does
   * (`npm run projections -- run`), so that their work does not share the gateway's event loop.
   */
  PROJECTIONS: z.enum(['in-process', 'off']).default('in-process'),
  /**
   * `on`: this instance submits, polls and bills video jobs (src/videos), the ones it queued at once and any
   * pending one on the job scheduler's tick. `off`: it only takes requests; the jobs it queues are left to
   * the instances that run the worker (with Redis, the tick goes only to those).
   */
  VIDEO_WORKER: z.enum(['on', 'off']).default('on'),
  /**
   * The account link (src/ledger/owners): with several instances on one database, each organization's
   * account is decided by one instance, its owner, and the others forward its commands there. Set to the
   * port this instance listens on for the other instances (0: any free port); unset, every instance
   * decides on every account itself, as a single instance does.
   */
  ACCOUNT_LINK_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** The host name or address the other instances reach this one at (default: the machine's host name). */
  ACCOUNT_LINK_HOST: z.string().trim().min(1).optional(),
  /** Shared by every instance: a link connection that does not present it is dropped. */
  ACCOUNT_LINK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * How long an instance that stops renewing its heartbeat (every third of it) still counts as alive
   * (src/ledger/instances): past it, the others close the reservations it held and take over the accounts
   * it owned over the account link. A pause shorter than this loses nothing.
   */
  INSTANCE_LEASE_MS: z.coerce.number().int().min(1_000).max(600_000).default(10_000),
});

export type Config = z.infer<typeof configSchema>;

/** The names of every variable the gateway reads (provider keys aside: the catalog names those). */
export const configVariables: readonly string[] = Object.keys(configSchema.shape);

/** Thrown for a bad environment; its message is the one line printed before exiting. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings count as unset: `FOO= npm start` should not be an error.
  const present = Object.fromEntries(
    Object.entries(env).filter(([name, value]) => name in configSchema.shape && value !== undefined && value !== ''),
  );
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`invalid configuration: ${variable}=${JSON.stringify(env[variable] ?? '')}: ${issue.message}`);
  }
  if (parsed.data.CLIENT_HEADERS_TIMEOUT_MS > parsed.data.CLIENT_REQUEST_TIMEOUT_MS) {
    throw new ConfigError(`invalid configuration: CLIENT_HEADERS_TIMEOUT_MS="${parsed.data.CLIENT_HEADERS_TIMEOUT_MS}": must not exceed CLIENT_REQUEST_TIMEOUT_MS (the headers are part of the request)`);
  }
  if (parsed.data.PROJECTIONS === 'off' && !parsed.data.DATABASE_URL) {
    // PGlite in DATA_DIR opens in one process only: no worker could follow the log beside the gateway.
    throw new ConfigError('invalid configuration: PROJECTIONS="off": needs DATABASE_URL (in the embedded mode the gateway alone opens DATA_DIR, so it runs the projections)');
  }
  if (parsed.data.ACCOUNT_LINK_PORT !== undefined && !parsed.data.ACCOUNT_LINK_SECRET) {
    throw new ConfigError(`invalid configuration: ACCOUNT_LINK_PORT="${parsed.data.ACCOUNT_LINK_PORT}": needs ACCOUNT_LINK_SECRET (the link carries money commands)`);
  }
  if (parsed.data.ACCOUNT_LINK_PORT !== undefined && !parsed.data.DATABASE_URL) {
    throw new ConfigError(`invalid configuration: ACCOUNT_LINK_PORT="${parsed.data.ACCOUNT_LINK_PORT}": needs DATABASE_URL (owners matter only to instances that share a database)`);
  }
  return parsed.data;
}

export type RuntimeMode = 'embedded' | 'production';

/** Embedded = everything in one process on PGlite; production = external Postgres (and optionally ESDB, Redis). */
export function runtimeMode(config: Config): RuntimeMode {
  return config.DATABASE_URL ? 'production' : 'embedded';
}
