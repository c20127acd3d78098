import { randomUUID } from 'node:crypto';
import { AccessCommands } from './access/access-commands.js';
import { AccessDirectory } from './access/access-directory.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import { migrateToLatest, openPglite, openPostgres, type Database, type PostgresOptions } from './db/database.js';
import { createEventStore } from './eventstore/create-event-store.js';
import type { EventStore } from './eventstore/event-store.js';
import type { ReadinessCheck } from './http/health-routes.js';
import { AccountService } from './ledger/account-service.js';
import { AccountSnapshotStore } from './ledger/account-snapshot.js';
import type { Accounts } from './ledger/accounts.js';
import { GatewayInstances } from './ledger/instances/gateway-instances.js';
import type { AccountCommandRoute } from './ledger/owners/owned-accounts.js';
import type { Logger } from './logger.js';
import { InProcessRateLimiter } from './ratelimit/in-process-rate-limiter.js';
import { OutageAwareRateLimiter } from './ratelimit/outage-aware-rate-limiter.js';
import type { RateLimiter } from './ratelimit/rate-limiter.js';

/**
 * The gateway's state and domain services, without HTTP: what the server (main.ts) serves, what the admin
 * CLI runs its commands on, and what the tests start through the server — one way to open them for all,
 * so a CLI never sees a database, a store or a rate limiter set up differently from the gateway's.
 */
export interface Core {
  readonly database: Database;
  readonly store: EventStore;
  readonly accounts: Accounts;
  readonly directory: AccessDirectory;
  readonly commands: AccessCommands;
  readonly readiness: ReadinessCheck[];
  readonly rateLimiter: RateLimiter;
  /** This process as a gateway instance (with `instance: true`): its id and heartbeat. */
  readonly instances: GatewayInstances | undefined;
  /** Adds something to close (before the stores) when the core closes. */
  track(release: () => Promise<unknown>): void;
  close(): Promise<void>;
}

export interface CoreOptions {
  /** Wraps the event store where it is built, so every user of the core gets the same one (the gateway's metrics). */
  readonly decorateStore?: (store: EventStore) => EventStore;
  /**
   * Opens the account link when ACCOUNT_LINK_PORT is set (the server). A CLI leaves it closed: it runs
   * the few commands it issues itself, and must neither listen nor take an organization's lease.
   */
  readonly accountLink?: boolean;
  /** Told what became of each account command the link could forward (the gateway's metrics). */
  readonly observeAccountCommand?: (route: AccountCommandRoute) => void;
  /**
   * Registers this process as a gateway instance (the server): an id that its requests' reservations
   * carry, and a heartbeat by which the others know it is alive. A CLI holds no reservation and registers none.
   */
  readonly instance?: boolean;
}

const RELEASE_TIMEOUT_MS = 5_000;

/**
 * The database the configuration names — Postgres at DATABASE_URL, else PGlite in DATA_DIR — migrated to
 * the latest schema. The projections CLI opens it alone, with a smaller pool under its own name.
 */
export async function openDatabase(config: Config, postgres: Omit<PostgresOptions, 'url'> = {}): Promise<Database> {
  if (!config.DATABASE_URL) {
    const database = await openPglite({ dataDir: config.DATA_DIR });
    try {
      await migrateToLatest(database);
      return database;
    } catch (error) {
      await database.close();
      throw error;
    }
  }
  // Migrations run on a connection of their own without the statement bound: one may wait for another
  // instance's migration lock, or build an index, for longer than a request's query may take.
  const migrating = await openPostgres({ url: config.DATABASE_URL, poolSize: 1, applicationName: `${postgres.applicationName ?? 'model-gateway'}-migrate` });
  try {
    await migrateToLatest(migrating);
  } finally {
    await migrating.close();
  }
  return openPostgres({ timeoutMs: config.DATABASE_TIMEOUT_MS, ...postgres, url: config.DATABASE_URL });
}


export async function openCore(config: Config, logger: Logger, clock: Clock, options: CoreOptions = {}): Promise<Core> {
  const database = await openDatabase(config);
  const resources: Array<() => Promise<unknown>> = [() => database.close()];
  // Each resource gets a bounded time to close: a client stuck reconnecting to a dead Redis or
  // database must not keep the process from shutting down.
  const close = async () => {
    for (const release of resources.reverse()) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), RELEASE_TIMEOUT_MS).unref()));
      const outcome = await Promise.race([release().catch((error) => logger.warn({ err: error }, 'error while closing')), timedOut]);
      clearTimeout(timer);
      if (outcome === 'timeout') logger.warn({ resource: release.name || 'resource' }, `did not close within ${RELEASE_TIMEOUT_MS} ms`);
    }
  };
  try {
    const readiness: ReadinessCheck[] = [{ name: 'database', check: () => database.ping() }];
    let rateLimiter: RateLimiter = new InProcessRateLimiter(clock);
    if (config.REDIS_URL) {
      // imported only in production mode: ioredis is resident memory an embedded gateway has no use for
      const { connectRedis, createRedisClient } = await import('./ratelimit/redis-client.js');
      const { RedisRateLimiter } = await import('./ratelimit/redis-rate-limiter.js');
      const redis = createRedisClient(config.REDIS_URL);
      resources.push(() => redis.quit().catch(() => redis.disconnect()));
      if (!(await connectRedis(redis))) logger.warn('Redis does not answer yet; retrying in the background');
      const failOpen = config.REDIS_OUTAGE === 'fail-open';
      readiness.push({ name: 'redis', check: async () => void (await redis.ping()), optional: failOpen });
      rateLimiter = new OutageAwareRateLimiter(new RedisRateLimiter(redis, config.REDIS_PREFIX, clock), config.REDIS_OUTAGE, rateLimiter, logger);
    }
    // Added after the Redis client's quit, so it closes before it (resources close in reverse): the
    // corrections of the last requests reach Redis before the connection goes.
    const limiter = rateLimiter;
    resources.push(() => limiter.close());
    const adapter = await createEventStore(config, database);
    const store: EventStore = options.decorateStore ? options.decorateStore(adapter) : adapter;
    resources.push(() => store.close());
    if (config.EVENTSTORE_URL) readiness.push({ name: 'eventstore', check: () => store.ping() });
    const local = new AccountService({ store, snapshots: new AccountSnapshotStore(database.kysely), clock, logger });
    let instances: GatewayInstances | undefined;
    if (options.instance) {
      const registered = await GatewayInstances.start(database.kysely, randomUUID(), config.INSTANCE_LEASE_MS, logger);
      // Stopped last but for the stores: by then every request of this instance has closed what it could,
      // and marking it gone lets the others close the rest at once.
      resources.push(() => registered.stop());
      // The embedded mode's data directory is locked by this process, so an earlier one is surely dead.
      if (!config.DATABASE_URL) await registered.othersAreGone();
      instances = registered;
    }
    let accounts: Accounts = local;
    if (options.accountLink && config.ACCOUNT_LINK_PORT !== undefined) {
      const { OwnedAccounts } = await import('./ledger/owners/owned-accounts.js');
      const { hostname } = await import('node:os');
      const owned = await OwnedAccounts.start({
        local,
        db: database.kysely,
        host: config.HOST,
        port: config.ACCOUNT_LINK_PORT,
        advertisedHost: config.ACCOUNT_LINK_HOST ?? hostname(),
        secret: config.ACCOUNT_LINK_SECRET!,
        leaseMs: config.INSTANCE_LEASE_MS,
        ...(instances ? { instanceId: instances.instanceId } : {}),
        logger,
        ...(options.observeAccountCommand ? { observe: options.observeAccountCommand } : {}),
      });
      // Closed before the store: the commands it is running for other instances answer first.
      resources.push(() => owned.close());
      accounts = owned;
    }
    const directory = new AccessDirectory(store, logger);
    resources.push(() => directory.stop());
    await directory.start();
    const commands = new AccessCommands(store, accounts, directory, clock);
    return { database, store, accounts, directory, commands, readiness, rateLimiter, instances, close, track: (release) => void resources.push(release) };
  } catch (error) {
    await close();
    throw error;
  }
}
