import type { AccessDirectory } from '../access/access-directory.js';
import type { CatalogStore } from '../catalog/catalog-store.js';
import type { Clock } from '../clock.js';
import type { Accounts } from '../ledger/accounts.js';
import type { Logger } from '../logger.js';
import type { PriceList } from '../prices/price-book.js';
import type { ProviderClient } from '../providers/provider-client.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import type { DeploymentHealth } from './deployment-health.js';
import type { InFlightRequests } from './in-flight-requests.js';

/** What every endpoint of the pipeline runs on. */
export interface PipelineDependencies {
  readonly catalog: CatalogStore;
  /** Every model's price versions: a request is priced at the one in force when it arrives. */
  readonly prices: PriceList;
  readonly directory: AccessDirectory;
  readonly accounts: Accounts;
  readonly rateLimiter: RateLimiter;
  readonly providers: ProviderClient;
  readonly inFlight: InFlightRequests;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly counters: PipelineCounters;
  /** Every deployment's breaker and figures, this instance's (retries, fallbacks, cooldowns). */
  readonly deploymentHealth: DeploymentHealth;
  /**
   * The gateway instance serving the requests (src/ledger/instances): their reservations name it, so that
   * if it dies the others close them at once. Absent where no instance is registered (some tests).
   */
  readonly instanceId?: string;
}

/** Failures that cost no money but must not pass unnoticed (read by the metrics endpoint). */
export interface PipelineCounters {
  /** Rate-limit corrections that could not be written (the admission's estimate then stays counted). */
  rateLimitSettleFailures: number;
}
