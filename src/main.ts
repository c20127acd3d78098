import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { resolveAdminToken } from './admin/admin-token.js';
import { CatalogStore } from './catalog/catalog-store.js';
import { CatalogError } from './catalog/load-catalog.js';
import { modelsRoutes } from './catalog/models-routes.js';
import { ConfigError, loadConfig, runtimeMode, type Config } from './config.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { migrateToLatest, openPglite, openPostgres, type Database } from './db/database.js';
import { createApp } from './http/app.js';
import type { ReadinessCheck } from './http/health-routes.js';
import { createLogger, type Logger } from './logger.js';
import { connectRedis, createRedisClient } from './ratelimit/redis-client.js';

/**
 * The composition root: the only file that knows which adapters run (DESIGN.md section 2).
 * `startGateway` is what `npm start` runs and what the end-to-end tests start in-process.
 */
export interface Gateway {
  readonly url: string;
  readonly server: Server;
  readonly catalog: CatalogStore;
  readonly database: Database;
  readonly adminToken: string | undefined;
  /** Stops accepting, lets in-flight requests finish (up to SHUTDOWN_GRACE_MS), then closes the pools. */
  stop(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
}

export async function startGateway(config: Config, options: StartOptions = {}): Promise<Gateway> {
  const logger = options.logger ?? createLogger(config.LOG_LEVEL);
  const mode = runtimeMode(config);
  const catalog = await CatalogStore.open(config.CATALOG_FILE, logger);

  const database = config.DATABASE_URL ? await openPostgres({ url: config.DATABASE_URL }) : await openPglite({ dataDir: config.DATA_DIR });
  const resources: Array<() => Promise<unknown>> = [() => database.close()];
  const closeResources = async () => {
    for (const close of resources.reverse()) await close().catch((error) => logger.warn({ err: error }, 'error while closing'));
  };

  try {
    await migrateToLatest(database);
    const readiness: ReadinessCheck[] = [{ name: 'database', check: () => database.ping() }];
    if (config.REDIS_URL) {
      const redis = createRedisClient(config.REDIS_URL);
      resources.push(() => redis.quit().catch(() => redis.disconnect()));
      if (!(await connectRedis(redis))) logger.warn('Redis does not answer yet; retrying in the background');
      readiness.push({ name: 'redis', check: async () => void (await redis.ping()) });
    }

    const admin = resolveAdminToken(config.ADMIN_TOKEN, mode === 'embedded' ? config.DATA_DIR : undefined);
    if (admin.generated) {
      // Printed once, on the start that generated it; it stays in DATA_DIR/admin-token.
      process.stdout.write(`admin token (shown once, kept in ${config.DATA_DIR}/admin-token): ${admin.token}\n`);
    } else if (!admin.token) {
      logger.warn('ADMIN_TOKEN is not set: the admin HTTP API is off (the admin CLI still works)');
    }

    const app = createApp({ logger, readiness, routers: [modelsRoutes(catalog)] });
    const server = createServer(app);
    // Longer than the usual load-balancer idle timeout, so the balancer closes idle connections first.
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.PORT, config.HOST, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    logger.info({ url, mode, models: catalog.current.models.size }, 'gateway listening');

    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const grace = new Promise<void>((resolve) => setTimeout(resolve, config.SHUTDOWN_GRACE_MS).unref());
        await Promise.race([closed, grace]);
        server.closeAllConnections();
        await closeResources();
        logger.info('gateway stopped');
      })());

    return { url, server, catalog, database, adminToken: admin.token, stop };
  } catch (error) {
    await closeResources();
    throw error;
  }
}

/** `npm start`: read the environment, start, and handle SIGTERM/SIGINT (graceful stop) and SIGHUP (catalog reload). */
async function runFromCommandLine(): Promise<void> {
  let gateway: Gateway;
  try {
    gateway = await startGateway(loadConfig());
  } catch (error) {
    if (error instanceof ConfigError || error instanceof CatalogError || error instanceof DataDirLockedError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const shutdown = () => {
    gateway.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  process.on('SIGHUP', () => void gateway.catalog.reload());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runFromCommandLine();
}
