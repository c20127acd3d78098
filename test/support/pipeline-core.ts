import { pino } from 'pino';
import { NO_LIMITS, DEFAULT_RPM, DEFAULT_TPM, type KeySettings } from '../../src/access/access-events.js';
import type { Clock } from '../../src/clock.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { openCore, type Core } from '../../src/core.js';
import { PriceBook } from '../../src/prices/price-book.js';
import { DeploymentHealth } from '../../src/pipeline/deployment-health.js';
import { InFlightRequests } from '../../src/pipeline/in-flight-requests.js';
import type { PipelineDependencies } from '../../src/pipeline/pipeline-dependencies.js';
import type { ProviderClient } from '../../src/providers/provider-client.js';
import { createScratchDatabase } from './databases.js';
import { testCatalog } from './pipeline-stages.js';

/**
 * The pipeline's dependencies on a real core (Postgres event store and read models on a scratch database,
 * the in-process rate limiter) for the steps that decide on stores, tested one at a time
 * (test/int/pipeline/steps). The provider is the test's own.
 */
export interface PipelineCore {
  readonly core: Core;
  readonly deps: PipelineDependencies;
  /** An organization with `credits` nanodollars and a key; the key's secret and ids. */
  customer(credits: bigint, key?: Partial<KeySettings>): Promise<{ orgId: string; keyId: string; secret: string }>;
  close(): Promise<void>;
}

export async function openPipelineCore(label: string, providers: ProviderClient, clock: Clock = systemClock): Promise<PipelineCore> {
  const scratch = await createScratchDatabase(label);
  const logger = pino({ level: 'silent' });
  const core = await openCore(loadConfig({ DATABASE_URL: scratch.url, LOG_LEVEL: 'silent' }), logger, clock);
  const catalog = await testCatalog();
  // the catalog's prices recorded in the store, as the gateway records them when it starts
  const prices = new PriceBook(core.store, logger);
  await prices.start();
  await prices.recordCatalog(catalog.current, clock.now());
  core.track(() => prices.stop());
  const deps: PipelineDependencies = {
    catalog,
    prices,
    directory: core.directory,
    accounts: core.accounts,
    rateLimiter: core.rateLimiter,
    providers,
    inFlight: new InFlightRequests(core.directory),
    clock,
    logger,
    counters: { rateLimitSettleFailures: 0 },
    deploymentHealth: new DeploymentHealth(),
  };
  return {
    core,
    deps,
    async customer(credits, key = {}) {
      const organization = await core.commands.createOrganization({ name: 'Step org', piiMasking: false, spendLimits: NO_LIMITS }, 'test');
      if (credits > 0n) await core.commands.addCredits(organization.orgId, credits, undefined, 'test');
      const settings = { name: 'step key', employeeId: null, models: null, limits: { overall: NO_LIMITS, byType: {}, byModel: {} }, rpm: DEFAULT_RPM, tpm: DEFAULT_TPM, expiresAt: null, maxConcurrentRequests: null, maxCostPerRequest: null };
      const { secret, key: issued } = await core.commands.issueKey(organization.orgId, { ...settings, ...key }, 'test');
      return { orgId: organization.orgId, keyId: issued.keyId, secret };
    },
    async close() {
      await core.close();
      await scratch.drop();
    },
  };
}
