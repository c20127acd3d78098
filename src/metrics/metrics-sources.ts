import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { EventStore } from '../eventstore/event-store.js';
import type { Logger } from '../logger.js';
import type { DeploymentHealth } from '../pipeline/deployment-health.js';
import type { PipelineCounters } from '../pipeline/pipeline-dependencies.js';
import { projectionStatuses } from '../../projections/projection-status.js';
import type { Projection } from '../../projections/projection.js';
import { videoJobCounts } from '../../projections/video-jobs-queries.js';
import type { GatewayMetrics } from './gateway-metrics.js';

/** What the gauges are read from when Prometheus scrapes. */
export interface MetricsSources {
  readonly database: Database;
  readonly store: EventStore;
  readonly projections: readonly Projection[];
  readonly counters: PipelineCounters;
  readonly logger: Logger;
  /** The deployments' attempts, retries, fallbacks and cooldowns, as this instance saw them. */
  readonly deploymentHealth?: DeploymentHealth;
}

/**
 * Sets the scrape-time series. Open reservations and reserved money come from the `requests` read model
 * (one indexed query over the open rows): the ledger's in-memory state holds only the accounts this
 * instance has loaded, while the read model sees every instance's reservations, so every instance reports
 * the same cluster-wide figure (aggregate with max, not sum), trailing the log by the projection's lag.
 * A source that cannot be read is logged and counted; its gauges keep their last value, and the scrape
 * still answers with everything else (process metrics matter most while a store is down).
 */
export async function refreshScrapedMetrics(metrics: GatewayMetrics, sources: MetricsSources): Promise<void> {
  syncCounter(metrics.rateLimitSettleFailures, sources.counters.rateLimitSettleFailures);
  if (sources.deploymentHealth) syncDeployments(metrics, sources.deploymentHealth);
  await Promise.all([
    readSource(metrics, sources.logger, 'reservations', () => refreshReservations(metrics, sources.database.kysely)),
    readSource(metrics, sources.logger, 'projections', () => refreshProjectionLag(metrics, sources)),
    readSource(metrics, sources.logger, 'video_jobs', () => refreshVideoJobs(metrics, sources.database.kysely)),
  ]);
}

async function refreshVideoJobs(metrics: GatewayMetrics, readModels: Kysely<object>): Promise<void> {
  const counts = await videoJobCounts(readModels);
  for (const [status, jobs] of Object.entries(counts.byStatus)) metrics.videoJobs.set({ status }, jobs);
  metrics.videoJobsUnbilled.set(counts.unbilled);
}

async function refreshReservations(metrics: GatewayMetrics, readModels: Kysely<object>): Promise<void> {
  const { rows } = await sql<{ open: string; reserved: string }>`
    select count(*)::text as open, coalesce(sum(reserved), 0)::text as reserved from requests where status = 'open'`.execute(readModels);
  const row = rows[0]!;
  metrics.openReservations.set(Number(row.open));
  // a float sample is exact up to 2^53 nanodollars (about 9 million USD held at once)
  metrics.reservedMoney.set(Number(row.reserved));
}

async function refreshProjectionLag(metrics: GatewayMetrics, sources: MetricsSources): Promise<void> {
  const statuses = await projectionStatuses(sources.database, sources.store, sources.projections);
  metrics.projectionLagEvents.reset();
  metrics.projectionLagSeconds.reset();
  for (const status of statuses) {
    // the serving generation; a rebuild's building one is reported by `npm run projections -- status`
    if (status.status !== 'active' || !status.lag) continue;
    metrics.projectionLagEvents.set({ projection: status.projection }, status.lag.eventsBehind);
    metrics.projectionLagSeconds.set({ projection: status.projection }, status.lag.msBehind / 1000);
  }
}

async function readSource(metrics: GatewayMetrics, logger: Logger, source: string, read: () => Promise<void>): Promise<void> {
  try {
    await read();
  } catch (error) {
    metrics.sourceErrors.inc({ source });
    logger.warn({ err: error, source }, 'a metrics source could not be read');
  }
}

/** A counter kept elsewhere as a plain number, shown as a Prometheus counter. */
function syncCounter(counter: GatewayMetrics['rateLimitSettleFailures'], value: number): void {
  counter.reset();
  counter.inc(value);
}

/** The deployments' figures, kept by the pipeline as plain numbers, shown per deployment. */
function syncDeployments(metrics: GatewayMetrics, health: DeploymentHealth): void {
  const statuses = health.statuses();
  for (const counter of [metrics.deploymentAttempts, metrics.deploymentRetries, metrics.deploymentFallbacks, metrics.deploymentCooldowns]) counter.reset();
  metrics.deploymentCoolingDown.reset();
  for (const status of statuses) {
    const labels = { model: status.model, deployment: status.deployment };
    metrics.deploymentAttempts.inc({ ...labels, outcome: 'answered' }, status.answered);
    metrics.deploymentAttempts.inc({ ...labels, outcome: 'failed' }, status.failed);
    metrics.deploymentRetries.inc(labels, status.retries);
    metrics.deploymentFallbacks.inc(labels, status.fallbacks);
    metrics.deploymentCooldowns.inc(labels, status.cooldowns);
    metrics.deploymentCoolingDown.set(labels, status.coolingDown ? 1 : 0);
  }
}
