import type { Kysely } from 'kysely';
import type { AlertWebhook } from '../access/access-events.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { signedHeaders } from './standard-webhooks.js';
import { claimDueDeliveries, recordAttempt, type AttemptResult, type DeliveryRow } from './webhook-deliveries.js';

/** How often the job queue runs a dispatch: the first attempt of an alert comes within about this. */
export const WEBHOOK_TICK_MS = 1_000;
/** A receiver that has not answered by then is a failed attempt, tried again after its back-off. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** Longer than an attempt can take, so a claimed delivery is not taken again while it is being sent. */
const LEASE_MS = 3 * ATTEMPT_TIMEOUT_MS;
const DELIVERIES_PER_TICK = 50;
/** What of a refusing receiver's answer is kept as the last error, for the delivery log. */
const ERROR_TEXT_LIMIT = 300;

export interface WebhookDispatcherOptions {
  readonly db: Kysely<object>;
  /** The organization's webhook as this instance knows it now (the access directory). */
  readonly webhookOf: (orgId: string) => AlertWebhook | null;
  readonly clock: Clock;
  readonly logger?: Logger;
}

/**
 * Sends the due alert webhooks, at least once: run on every tick of the job queue (BullMQ on Redis in
 * production, the in-process runner embedded). Each delivery is a `POST` of its body to the organization's
 * webhook URL as it is at the attempt, signed with its secret (Standard Webhooks: the `webhook-id` is the
 * delivery's id, the same on every retry, so a receiver drops a duplicate). A 2xx delivers it; anything
 * else (no webhook set, a refusal, a timeout) is retried with back-off (webhook-deliveries.ts).
 */
export class WebhookDispatcher {
  constructor(private readonly options: WebhookDispatcherOptions) {}

  /** Attempts the deliveries due now; returns how many were attempted. */
  async deliverDue(): Promise<number> {
    const { db, clock } = this.options;
    const due = await claimDueDeliveries(db, clock.now(), DELIVERIES_PER_TICK, LEASE_MS);
    await Promise.all(due.map((delivery) => this.attempt(delivery)));
    return due.length;
  }

  private async attempt(delivery: DeliveryRow): Promise<void> {
    const { db, clock, webhookOf, logger } = this.options;
    const webhook = webhookOf(delivery.org_id);
    const result: AttemptResult = webhook ? await post(webhook, delivery, clock.now()) : { ok: false, status: null, error: 'the organization has no webhook URL' };
    if (!result.ok) logger?.warn({ deliveryId: delivery.delivery_id, orgId: delivery.org_id, status: result.status, error: result.error }, 'webhook delivery failed');
    await recordAttempt(db, delivery, result, clock.now());
  }
}

async function post(webhook: AlertWebhook, delivery: DeliveryRow, now: Date): Promise<AttemptResult> {
  try {
    const answer = await fetch(webhook.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'model-gateway-webhooks', ...signedHeaders(webhook.secret, delivery.delivery_id, now, delivery.body) },
      body: delivery.body,
      // a redirect is not followed: the body would be sent where the organization did not say
      redirect: 'manual',
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    });
    const text = await answer.text().catch(() => '');
    if (answer.status >= 200 && answer.status < 300) return { ok: true, status: answer.status };
    return { ok: false, status: answer.status, error: `HTTP ${answer.status}${text ? `: ${text.slice(0, ERROR_TEXT_LIMIT)}` : ''}` };
  } catch (error) {
    const reason = error instanceof Error ? (error.name === 'TimeoutError' ? `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s` : `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}`) : String(error);
    return { ok: false, status: null, error: reason };
  }
}
