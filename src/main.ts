import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { adminRoutes } from './admin/admin-routes.js';
import { auditRoutes } from './admin/audit-routes.js';
import { consoleRoutes } from './admin/console-routes.js';
import { projectionRoutes } from './admin/projection-routes.js';
import { resolveAdminToken } from './admin/admin-token.js';
import { announceGateway } from './admin-client/running-gateway.js';
import { CatalogStore } from './catalog/catalog-store.js';
import { CatalogError } from './catalog/load-catalog.js';
import { PriceBook } from './prices/price-book.js';
import { ConfigError, loadConfig, runtimeMode, type Config } from './config.js';
import { openCore, type Core } from './core.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { createApp } from './http/app.js';
import { frontDoor } from './http/front-door.js';
import { requestLog } from './http/request-log.js';
import { systemClock, type Clock } from './clock.js';
import { loadTokenCounter } from './billing/o200k-token-counter.js';
import { InProcessScheduler } from './jobs/in-process-scheduler.js';
import type { JobScheduler } from './jobs/job-scheduler.js';
import { sweepExpiredReservations, SWEEP_INTERVAL_MS } from './ledger/reservation-sweeper.js';
import { heldReservationsFrom, overdueReservationsFrom } from '../projections/overdue-reservations.js';
import { closeOrphanedReservations, ORPHAN_SWEEP_INTERVAL_MS } from './ledger/instances/orphaned-reservations.js';
import { ensureActiveGeneration } from '../projections/projection-generations.js';
import { ProjectionRunner } from '../projections/projection-runner.js';
import { eventCatalogue, projections } from '../projections/registry.js';
import { createLogger, type Logger } from './logger.js';
import type { Accounts } from './ledger/accounts.js';
import type { GatewayInstances } from './ledger/instances/gateway-instances.js';
import type { ListHeldReservations } from './ledger/instances/orphaned-reservations.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';
import { DeploymentHealth } from './pipeline/deployment-health.js';
import { MeasuredEventStore } from './metrics/measured-event-store.js';
import { metricsRoutes, requestMetrics } from './metrics/metrics-routes.js';
import { InFlightRequests } from './pipeline/in-flight-requests.js';
import { endpointHandlers } from './pipeline/endpoint-handlers.js';
import { endpointRoutes } from './http/endpoint-routes.js';
import type { RequestObserver } from './http/request-context.js';
import { modelsRoute } from './http/models-route.js';
import { SignInThrottle } from './http/sign-in-throttle.js';
import { answerMalformedRequest } from './http/malformed-request.js';
import { closeSilentConnections } from './http/silent-connections.js';
import { videoRoutes } from './http/video-routes.js';
import { UndiciProviderClient } from './providers/undici-provider-client.js';
import { VideoJobs } from './videos/video-jobs.js';
import { VIDEO_TICK_MS } from './videos/video-worker.js';
import { videoJobReadsFrom } from '../projections/video-jobs-queries.js';
import { WebhookDispatcher, WEBHOOK_TICK_MS } from './alerts/webhook-dispatcher.js';

/**
 * The composition root: the only place that knows which adapters run (DESIGN.md section 2), with the core
 * it builds on (core.ts: stores, services, rate limiter). Here the HTTP server and the background work go
 * on top of it. `startGateway` is what `npm start` runs and what the end-to-end tests start in-process.
 */
export interface Gateway extends Pick<Core, 'database' | 'store' | 'accounts' | 'directory' | 'commands'> {
  readonly url: string;
  readonly server: Server;
  readonly catalog: CatalogStore;
  /** Every model's price versions (the catalog's recorded at start and on each reload, and the admin API's). */
  readonly prices: PriceBook;
  readonly adminToken: string | undefined;
  /** Stops accepting, lets in-flight requests finish (up to SHUTDOWN_GRACE_MS), then closes the pools. */
  stop(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  clock?: Clock;
}

export async function startGateway(config: Config, options: StartOptions = {}): Promise<Gateway> {
  const logger = options.logger ?? createLogger(config.LOG_LEVEL);
  const clock = options.clock ?? systemClock;
  const mode = runtimeMode(config);
  loadTokenCounter(); // its vocabulary now, not in the first request's time
  const metrics = new GatewayMetrics();
  const core = await openCore(config, logger, clock, {
    decorateStore: (store) => new MeasuredEventStore(store, metrics),
    accountLink: true,
    instance: true,
    observeAccountCommand: (route) => metrics.observeAccountCommand(route),
  });
  const { database, store, accounts, directory, commands, readiness } = core;
  const closeResources = () => core.close();

  try {
    // The catalog's prices are recorded as price versions before it serves (at start and on each reload).
    const prices = new PriceBook(store, logger);
    core.track(() => prices.stop());
    await prices.start();
    const catalog = await CatalogStore.open(config.CATALOG_FILE, logger, (loaded) => prices.recordCatalog(loaded, clock.now()));

    // Read models follow the log in the background (one writer per projection across instances), here or
    // in a projection worker; the tables exist from the first start either way, for the admin reports.
    for (const projection of projections) {
      if (config.PROJECTIONS === 'off') {
        await ensureActiveGeneration(database, projection);
        continue;
      }
      const runner = new ProjectionRunner({
        database,
        store,
        catalogue: eventCatalogue,
        projection,
        onError: (error) => logger.error({ err: error, projection: projection.name }, 'projection stopped'),
      });
      core.track(() => runner.stop());
      await runner.start();
    }
    const providers = new UndiciProviderClient();
    core.track(() => providers.close());
    const videoJobs = VideoJobs.create({
      store, accounts, directory, catalog, prices, providers, clock, logger,
      reads: videoJobReadsFrom(database.kysely),
      submits: config.VIDEO_WORKER === 'on',
    });
    const scheduler: JobScheduler = config.REDIS_URL ? await bullMqScheduler(config.REDIS_URL, config.REDIS_PREFIX, logger) : new InProcessScheduler(logger);
    core.track(() => scheduler.close());
    if (config.REDIS_URL) readiness.push({ name: 'jobs', check: () => scheduler.ready(), optional: true });
    const listOverdue = overdueReservationsFrom(database.kysely);
    await scheduler.every('expire-reservations', SWEEP_INTERVAL_MS, async () => {
      const expired = await sweepExpiredReservations(listOverdue, accounts, clock);
      if (expired > 0) logger.info({ expired }, 'expired reservations past their deadline');
    });
    if (config.VIDEO_WORKER === 'on') await scheduler.every('advance-video-jobs', VIDEO_TICK_MS, () => videoJobs.tick());
    // budget alerts decided by their projection go out from the deliveries table, whichever instance ticks
    const webhooks = new WebhookDispatcher({ db: database.kysely, webhookOf: (orgId) => directory.organization(orgId)?.webhook ?? null, clock, logger });
    await scheduler.every('deliver-webhooks', WEBHOOK_TICK_MS, async () => void (await webhooks.deliverDue()));
    if (core.instances) core.track(closeOrphansEvery(core.instances, heldReservationsFrom(database.kysely), accounts, logger));

    const admin = resolveAdminToken(config.ADMIN_TOKEN, mode === 'embedded' ? config.DATA_DIR : undefined);
    if (admin.generated) {
      // Printed once, on the start that generated it; it stays in DATA_DIR/admin-token.
      process.stdout.write(`admin token (shown once, kept in ${config.DATA_DIR}/admin-token): ${admin.token}\n`);
    } else if (!admin.token) {
      const metricsOff = config.METRICS_TOKEN ? '' : '; so is GET /metrics, unless METRICS_TOKEN is set';
      logger.warn(`ADMIN_TOKEN is not set: the admin HTTP API is off (the admin CLI still works)${metricsOff}`);
    }

    const counters = { rateLimitSettleFailures: 0 };
    const pipeline = {
      catalog, prices, directory, accounts, rateLimiter: core.rateLimiter, providers, inFlight: new InFlightRequests(directory), clock, logger, counters,
      deploymentHealth: new DeploymentHealth(),
      ...(core.instances ? { instanceId: core.instances.instanceId } : {}),
    };
    const endpoints = endpointHandlers(pipeline, videoJobs);
    // one count of wrong admin tokens per client address for the admin API, the console's sign-in and /metrics
    const signIns = new SignInThrottle(logger);
    const observers = [requestMetrics(metrics), requestLog(logger)].filter((observer): observer is RequestObserver => observer !== undefined);
    const app = createApp({
      logger,
      readiness,
      observers,
      routers: [
        metricsRoutes({ metrics, tokens: [admin.token, config.METRICS_TOKEN], database, store, projections, counters, logger, signIns, deploymentHealth: pipeline.deploymentHealth }),
        endpointRoutes(endpoints, logger),
        modelsRoute(pipeline),
        videoRoutes({ videoJobs, directory, clock }),
        adminRoutes({ adminToken: admin.token, commands, accounts, catalog, prices, clock, readModels: database.kysely, store, signIns, deploymentHealth: pipeline.deploymentHealth }),
        auditRoutes({ adminToken: admin.token, commands, clock, signIns, store, readModels: database.kysely }),
        projectionRoutes({ adminToken: admin.token, database, store, clock, signIns }),
        consoleRoutes({ adminToken: admin.token, clock, signIns })],
    });
    const server = createServer(
      {
        headersTimeout: config.CLIENT_HEADERS_TIMEOUT_MS,
        requestTimeout: config.CLIENT_REQUEST_TIMEOUT_MS,
        // how often Node looks for requests past those timeouts (its default, 30 s, would make them that late)
        connectionsCheckingInterval: 1_000,
      },
      frontDoor({ endpoints, app, observers, logger }),
    );
    server.on('clientError', answerMalformedRequest);
    closeSilentConnections(server, config.CLIENT_HEADERS_TIMEOUT_MS);
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
    // the CLIs reach this gateway's admin API while it holds the data directory (admin-client/running-gateway.ts)
    if (mode === 'embedded') core.track(announceGateway(config.DATA_DIR, url));

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

    return { url, server, catalog, prices, database, store, accounts, directory, commands, adminToken: admin.token, stop };
  } catch (error) {
    await closeResources();
    throw error;
  }
}

/**
 * Every instance looks for dead instances' reservations on a timer of its own, not on the job scheduler:
 * with Redis the scheduler's ticks stop while Redis is away, and a crash during a Redis outage must still
 * give the organization its money back within the bound. Returns what stops it.
 */
function closeOrphansEvery(instances: GatewayInstances, listHeld: ListHeldReservations, accounts: Accounts, logger: Logger): () => Promise<void> {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return; // a slow run (a store stalled) is not stacked on
    running = closeOrphanedReservations(instances, listHeld, accounts).then(
      (closed) => void (closed > 0 && logger.info({ closed }, 'closed the reservations of instances that died (charged nothing)')),
      (error) => logger.warn({ err: error }, 'could not close the reservations of dead instances; retrying at the next tick'),
    ).finally(() => (running = undefined));
  }, ORPHAN_SWEEP_INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** BullMQ (and the Redis client under it) is imported only in production mode, where jobs run on Redis. */
async function bullMqScheduler(redisUrl: string, prefix: string, logger: Logger): Promise<JobScheduler> {
  const { BullMqScheduler } = await import('./jobs/bullmq-scheduler.js');
  return new BullMqScheduler(redisUrl, prefix, logger);
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
