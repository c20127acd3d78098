import type { Kysely } from 'kysely';
import type { AccessCommands } from '../access/access-commands.js';
import type { PageRecord, SpendControlsRecord, WebhookDeliveryRecord, WebhookRecord } from '../admin-records.js';
import { webhookBody } from '../alerts/budget-crossings.js';
import { newWebhookSecret } from '../alerts/standard-webhooks.js';
import { findDelivery, listDeliveries, queueTestDelivery, retryDelivery } from '../alerts/webhook-deliveries.js';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { SpendControlsBody } from './admin-schemas.js';
import { budgetAlertRulesFromBody, renderDelivery, renderSpendControls, renderWebhook } from './spend-control-renderers.js';

const DELIVERY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DEFAULT_PAGE_SIZE = 20;

/**
 * An organization's spend controls, for the admin API's routes and the admin CLI working on the database
 * alike: its concurrency cap and budget alerts, the webhook its alerts go to (with a secret made here and
 * shown once), a sample delivery to test it, and the log of deliveries with a retry for a failed one.
 */
export class SpendControls {
  constructor(
    private readonly commands: AccessCommands,
    /** The database of the webhook deliveries (migration 0104). */
    private readonly db: Kysely<object>,
    private readonly clock: Clock,
    private readonly actor: string,
  ) {}

  async show(orgId: string): Promise<SpendControlsRecord> {
    return renderSpendControls(await this.commands.loadOrganization(orgId));
  }

  async change(orgId: string, input: SpendControlsBody): Promise<SpendControlsRecord> {
    if (input.max_concurrent_requests !== undefined) await this.commands.changeOrganization(orgId, { maxConcurrentRequests: input.max_concurrent_requests }, this.actor);
    if (input.budget_alerts !== undefined) await this.commands.setBudgetAlerts(orgId, budgetAlertRulesFromBody(input.budget_alerts), this.actor);
    return this.show(orgId);
  }

  /** The secret is made on the first set and when asked; moving only the URL keeps it, so receivers go on checking. */
  async setWebhook(orgId: string, input: { url: string; rotate_secret?: boolean | undefined }): Promise<WebhookRecord> {
    const current = await this.commands.loadOrganization(orgId);
    const fresh = input.rotate_secret === true || current.webhook === null;
    const webhook = { url: input.url, secret: fresh ? newWebhookSecret() : current.webhook!.secret };
    await this.commands.setAlertWebhook(current.orgId, webhook, this.actor);
    return renderWebhook(current.orgId, webhook, fresh);
  }

  async removeWebhook(orgId: string): Promise<SpendControlsRecord> {
    return renderSpendControls(await this.commands.setAlertWebhook(orgId, null, this.actor));
  }

  /** Queues a sample `webhook.test`, sent like an alert by the next dispatch. */
  async sendTest(orgId: string): Promise<WebhookDeliveryRecord> {
    const organization = await this.commands.loadOrganization(orgId);
    if (!organization.webhook) throw new GatewayError('invalid_request', 'the organization has no webhook: set one first (PUT /organizations/{org}/webhook)');
    const now = this.clock.now();
    const sample = { organization_id: organization.orgId, message: 'a sample alert: the webhook is reached and its signature checks' };
    const id = await queueTestDelivery(this.db, organization.orgId, webhookBody('webhook.test', now.toISOString(), sample), now);
    return renderDelivery((await findDelivery(this.db, organization.orgId, id))!);
  }

  /** Newest first, a page of `limit` after the delivery `after`. */
  async deliveries(orgId: string, page: { limit?: number | undefined; after?: string | undefined }): Promise<PageRecord<WebhookDeliveryRecord>> {
    const { orgId: known } = await this.commands.loadOrganization(orgId);
    const limit = page.limit ?? DEFAULT_PAGE_SIZE;
    if (page.after !== undefined && !DELIVERY_ID.test(page.after)) throw new GatewayError('invalid_request', 'after must be a delivery id', { param: 'after' });
    const rows = await listDeliveries(this.db, known, limit + 1, page.after ?? null);
    const shown = rows.slice(0, limit).map(renderDelivery);
    return { object: 'list', data: shown, first_id: shown[0]?.id ?? null, last_id: shown.at(-1)?.id ?? null, has_more: rows.length > limit };
  }

  /** A failed delivery queued again, its attempts counted afresh. */
  async retry(orgId: string, deliveryId: string): Promise<WebhookDeliveryRecord> {
    const { orgId: known } = await this.commands.loadOrganization(orgId);
    const found = DELIVERY_ID.test(deliveryId) ? await findDelivery(this.db, known, deliveryId) : undefined;
    if (!found) throw new GatewayError('resource_not_found', `no webhook delivery ${deliveryId} of this organization`);
    if (found.status !== 'failed') throw new GatewayError('invalid_request', `the delivery is ${found.status}: only a failed one is retried`);
    await retryDelivery(this.db, found.delivery_id, this.clock.now());
    return renderDelivery((await findDelivery(this.db, known, found.delivery_id))!);
  }
}
