import type { Nanodollars } from '../billing/money.js';
import { RateLimitRefusal } from './steps/admit-step.js';
import type { ProviderFailureKind } from './provider-failure-kind.js';
import type { Closing, Stage } from './request-stages.js';

/**
 * What the pipeline learned about one request, for its log line (src/http/request-log.ts) and the metrics
 * (src/metrics): who asked for what, and what it cost; never a secret, never a message's contents.
 */
export interface RequestRecord {
  endpoint?: string;
  keyId?: string;
  orgId?: string;
  spaceId?: string | null;
  model?: string;
  /** The catalog's name of the model's provider. */
  provider?: string;
  /** Which limit refused the request (429): a per-minute one, or a concurrency cap. */
  rateLimited?: 'requests' | 'tokens' | 'concurrency';
  /** How the provider failed, when it did (its own error status, or no usable answer). */
  providerFailure?: ProviderFailureKind;
  /** `performance.now()` when a stream's first event was written to the client. */
  firstEventAt?: number;
  /** How the reservation ended, with the usage it was closed on. */
  closing?: Closing;
  cost?: Nanodollars;
  /** Waiting for the provider: until its whole body arrived, or until its stream ended. */
  providerMs?: number;
  /** The deployment that answered (`<model>#<id>`; a fallback's when one did), and the attempts made in all. */
  deployment?: string;
  attempts?: number;
}

/** The record of a request from the last stage it reached, and the error it ended with, if any. */
export function recordOf(stage: Stage, error: unknown): RequestRecord {
  const record: RequestRecord = { endpoint: stage.spec.name };
  const { caller, model, outcome } = stage;
  if (caller) {
    record.keyId = caller.key.keyId;
    record.orgId = caller.organization.orgId;
    record.spaceId = caller.spaceId;
  }
  if (model) {
    record.model = model.id;
    record.provider = model.provider.name;
  }
  if (error instanceof RateLimitRefusal) record.rateLimited = error.limit;
  if (outcome) {
    record.closing = outcome.closing;
    record.providerMs = outcome.providerMs;
    if (outcome.providerFailure !== undefined) record.providerFailure = outcome.providerFailure;
    if (outcome.firstEventAt !== undefined) record.firstEventAt = outcome.firstEventAt;
    if (outcome.answered) {
      record.deployment = outcome.answered.candidate.deployment.id;
      record.attempts = outcome.answered.attempts;
    }
  }
  if (stage.cost !== undefined) record.cost = stage.cost;
  return record;
}
