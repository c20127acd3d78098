import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AccountCommandRoute } from '../ledger/owners/owned-accounts.js';
import type { ProviderFailureKind } from '../pipeline/provider-failure-kind.js';
import type { RequestRecord } from '../pipeline/request-record.js';

/**
 * The gateway's Prometheus metrics (README, "Metrics"), one registry per gateway so that several gateways
 * in one process (the tests) keep their own figures. Labels are bounded by construction: endpoint names,
 * catalog model and provider names, status codes and fixed kinds — never a key, an organization or a
 * request id, whose number grows without limit.
 *
 * The hot path observes through label children cached here, so a request allocates no label object.
 */

// The provider's time spans milliseconds (embeddings) to minutes (long generations, the default timeout is 10 min).
const PROVIDER_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 320, 640];
// The gateway's own time: authentication, reserve, translation, settle — a few milliseconds when healthy.
const OVERHEAD_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const FIRST_BYTE_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];
const APPEND_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

export type AppendOutcome = 'ok' | 'conflict' | 'error';

/** One finished request of the pipeline, as its record and the HTTP layer saw it. */
export interface RequestObservation {
  readonly record: RequestRecord;
  /** The status sent, or 499 when the client left before any answer (nginx's convention). */
  readonly status: number;
  readonly durationMs: number;
  /** From the request's arrival to the first event of a stream; undefined for a JSON answer. */
  readonly firstEventMs: number | undefined;
}

type CounterChild = ReturnType<Counter['labels']>;
type HistogramChild = ReturnType<Histogram['labels']>;

export class GatewayMetrics {
  readonly registry = new Registry();

  private readonly requests = new Counter({
    name: 'gateway_requests_total',
    help: 'Requests through the model endpoints, by endpoint, catalog model (empty when refused before the model was known) and HTTP status',
    labelNames: ['endpoint', 'model', 'status'] as const,
    registers: [this.registry],
  });
  private readonly overhead = new Histogram({
    name: 'gateway_overhead_seconds',
    help: "The gateway's own time for a request that reached the provider: total time minus the provider's",
    labelNames: ['endpoint'] as const,
    buckets: OVERHEAD_BUCKETS,
    registers: [this.registry],
  });
  private readonly providerLatency = new Histogram({
    name: 'gateway_provider_latency_seconds',
    help: 'Waiting for the provider: until its whole body arrived, or until its stream ended',
    labelNames: ['endpoint'] as const,
    buckets: PROVIDER_BUCKETS,
    registers: [this.registry],
  });
  private readonly firstByte = new Histogram({
    name: 'gateway_stream_first_byte_seconds',
    help: "From a streamed request's arrival to the first event written to the client",
    labelNames: ['endpoint'] as const,
    buckets: FIRST_BYTE_BUCKETS,
    registers: [this.registry],
  });
  private readonly rateLimitRejections = new Counter({
    name: 'gateway_rate_limit_rejections_total',
    help: "Requests refused with 429: by a key's per-minute limit (requests or tokens) or by a concurrency cap (concurrency)",
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly providerFailures = new Counter({
    name: 'gateway_provider_errors_total',
    help: 'Provider calls that failed, by catalog provider and kind (status_4xx, status_5xx, connection, timeout, invalid_answer)',
    labelNames: ['provider', 'kind'] as const,
    registers: [this.registry],
  });
  private readonly appendLatency = new Histogram({
    name: 'gateway_event_append_seconds',
    help: 'Appends to the event store, by outcome (ok, conflict: wrong expected revision, error)',
    labelNames: ['outcome'] as const,
    buckets: APPEND_BUCKETS,
    registers: [this.registry],
  });
  private readonly appendBatch = new Histogram({
    name: 'gateway_event_append_batch_size',
    help: 'Events written per successful append (the ledger batches the commands of one account)',
    buckets: BATCH_BUCKETS,
    registers: [this.registry],
  });
  /** Read at scrape time (metrics-sources.ts). */
  readonly openReservations = new Gauge({
    name: 'gateway_open_reservations',
    help: 'Reservations not yet settled, released, cut off or expired, across every instance (read models)',
    registers: [this.registry],
  });
  readonly reservedMoney = new Gauge({
    name: 'gateway_reserved_nanodollars',
    help: 'Money held by open reservations across every instance, in nanodollars (1 USD = 1e9; read models)',
    registers: [this.registry],
  });
  readonly projectionLagEvents = new Gauge({
    name: 'gateway_projection_lag_events',
    help: "Events after the checkpoint of a projection's serving generation (counted up to 100000)",
    labelNames: ['projection'] as const,
    registers: [this.registry],
  });
  readonly projectionLagSeconds = new Gauge({
    name: 'gateway_projection_lag_seconds',
    help: "Age of the oldest event a projection's serving generation has not applied yet; 0 when caught up",
    labelNames: ['projection'] as const,
    registers: [this.registry],
  });
  readonly videoJobs = new Gauge({
    name: 'gateway_video_jobs',
    help: 'Video jobs by status across every instance (read models): queued is the depth of the queue waiting for a worker',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  readonly videoJobsUnbilled = new Gauge({
    name: 'gateway_video_jobs_unbilled',
    help: 'Finished video jobs whose reservation the worker has not closed yet (read models); should stay near 0',
    registers: [this.registry],
  });
  readonly rateLimitSettleFailures = new Counter({
    name: 'gateway_rate_limit_settle_failures_total',
    help: "Rate-limit corrections that could not be written (the request's estimate stayed counted)",
    registers: [this.registry],
  });
  private readonly accountCommands = new Counter({
    name: 'gateway_account_commands_total',
    help: 'Account commands the account link could forward, by route: owner, forwarded, here (no owner reachable), for_another',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  /** Per deployment of the catalog (a bounded set), synced at scrape time from the pipeline's DeploymentHealth. */
  readonly deploymentAttempts = new Counter({
    name: 'gateway_deployment_attempts_total',
    help: 'Calls sent to each deployment, by how they ended: answered (an answer the gateway used, a 4xx included) or failed (429, 5xx, no answer)',
    labelNames: ['model', 'deployment', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly deploymentRetries = new Counter({
    name: 'gateway_deployment_retries_total',
    help: "Calls to each deployment that were a request's second or later attempt",
    labelNames: ['model', 'deployment'] as const,
    registers: [this.registry],
  });
  readonly deploymentFallbacks = new Counter({
    name: 'gateway_deployment_fallbacks_total',
    help: "Calls to each deployment made as a fallback, after the requested model's deployments had all failed",
    labelNames: ['model', 'deployment'] as const,
    registers: [this.registry],
  });
  readonly deploymentCooldowns = new Counter({
    name: 'gateway_deployment_cooldowns_total',
    help: 'Times each deployment was put in cooldown after repeated failures (this instance)',
    labelNames: ['model', 'deployment'] as const,
    registers: [this.registry],
  });
  readonly deploymentCoolingDown = new Gauge({
    name: 'gateway_deployment_cooling_down',
    help: 'Whether each deployment is in cooldown on this instance now (1) or not (0)',
    labelNames: ['model', 'deployment'] as const,
    registers: [this.registry],
  });
  readonly sourceErrors = new Counter({
    name: 'gateway_metrics_source_errors_total',
    help: 'Scrapes in which a source could not be read (its gauges kept their last value)',
    labelNames: ['source'] as const,
    registers: [this.registry],
  });

  // endpoint → model → status → child: nested, so that finding a child builds no key string
  private readonly requestChildren = new Map<string, Map<string, Map<number, CounterChild>>>();
  private readonly overheadChildren = new Map<string, HistogramChild>();
  private readonly providerChildren = new Map<string, HistogramChild>();
  private readonly firstByteChildren = new Map<string, HistogramChild>();
  private readonly failureChildren = new Map<string, CounterChild>();
  private readonly rejectionChildren = {
    requests: this.rateLimitRejections.labels('requests'),
    tokens: this.rateLimitRejections.labels('tokens'),
    concurrency: this.rateLimitRejections.labels('concurrency'),
  };
  private readonly accountCommandChildren = new Map<AccountCommandRoute, CounterChild>();
  private readonly appendChildren = { ok: this.appendLatency.labels('ok'), conflict: this.appendLatency.labels('conflict'), error: this.appendLatency.labels('error') };

  constructor() {
    // series that start at 0 rather than appearing with their first event, so that rate() sees the first one
    for (const reason of ['requests', 'tokens', 'concurrency'] as const) this.rateLimitRejections.labels(reason).inc(0);
    for (const outcome of ['ok', 'conflict', 'error'] as const) this.appendLatency.zero({ outcome });
    processRegistry();
  }

  observeRequest({ record, status, durationMs, firstEventMs }: RequestObservation): void {
    const endpoint = record.endpoint;
    if (endpoint === undefined) return;
    const model = record.model ?? '';
    const byModel = child(this.requestChildren, endpoint, () => new Map<string, Map<number, CounterChild>>());
    const byStatus = child(byModel, model, () => new Map<number, CounterChild>());
    child(byStatus, status, () => this.requests.labels(endpoint, model, String(status))).inc();
    if (record.providerMs !== undefined) {
      child(this.providerChildren, endpoint, () => this.providerLatency.labels(endpoint)).observe(record.providerMs / 1000);
      child(this.overheadChildren, endpoint, () => this.overhead.labels(endpoint)).observe(Math.max(0, durationMs - record.providerMs) / 1000);
    }
    if (firstEventMs !== undefined) child(this.firstByteChildren, endpoint, () => this.firstByte.labels(endpoint)).observe(firstEventMs / 1000);
    if (record.rateLimited !== undefined) this.rejectionChildren[record.rateLimited].inc();
    if (record.providerFailure !== undefined && record.provider !== undefined) this.countProviderFailure(record.provider, record.providerFailure);
  }

  observeAppend(outcome: AppendOutcome, seconds: number, events: number): void {
    this.appendChildren[outcome].observe(seconds);
    if (outcome === 'ok') this.appendBatch.observe(events);
  }

  observeAccountCommand(route: AccountCommandRoute): void {
    child(this.accountCommandChildren, route, () => this.accountCommands.labels(route)).inc();
  }

  /** The text Prometheus scrapes: this gateway's series, then the process's (`process_…`, `nodejs_…`). */
  async exposition(): Promise<string> {
    return `${await this.registry.metrics()}\n${await processRegistry().metrics()}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private countProviderFailure(provider: string, kind: ProviderFailureKind): void {
    child(this.failureChildren, `${provider}\n${kind}`, () => this.providerFailures.labels(provider, kind)).inc();
  }
}

function child<Key, Child>(cache: Map<Key, Child>, key: Key, create: () => Child): Child {
  let found = cache.get(key);
  if (found === undefined) {
    found = create();
    cache.set(key, found);
  }
  return found;
}

let processMetrics: Registry | undefined;

/**
 * prom-client's process and Node defaults (CPU, memory, event-loop lag, GC, handles), collected once per
 * process: they describe the process, not a gateway, and each collection starts its own event-loop and
 * GC monitors that cannot be stopped.
 */
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}
