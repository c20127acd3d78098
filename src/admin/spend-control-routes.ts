import { Router } from 'express';
import type { Kysely } from 'kysely';
import type { AccessCommands } from '../access/access-commands.js';
import type { PageRecord, WebhookDeliveryRecord } from '../admin-records.js';
import { webhookBody as alertBody } from '../alerts/budget-crossings.js';
import { newWebhookSecret } from '../alerts/standard-webhooks.js';
import { findDelivery, listDeliveries, queueTestDelivery, retryDelivery } from '../alerts/webhook-deliveries.js';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors/gateway-error.js';
import { parseJsonObject } from '../http/request-body.js';
import type { RequestContext } from '../http/request-context.js';
import { DEFAULT_PAGE_SIZE, pageQuery } from './admin-list-routes.js';
import { parseBody, spendControlsBody, webhookBody } from './admin-schemas.js';
import { budgetAlertRulesFromBody, renderDelivery, renderSpendControls, renderWebhook } from './spend-control-renderers.js';

export interface SpendControlDependencies {
  readonly commands: AccessCommands;
  readonly clock: Clock;
  /** The database of the webhook deliveries (migration 0104). */
  readonly readModels: Kysely<object>;
}

const DELIVERY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The organization's spend controls in the admin API (docs/operator-guide.md, "Spend controls"): its
 * concurrency cap and budget alerts, the webhook its alerts go to (with a secret made here and shown once),
 * a sample delivery to test it, and the log of deliveries with a retry for a failed one. A key's caps are
 * fields of the key (`PATCH /keys/{key}`).
 */
export function spendControlRoutes(deps: SpendControlDependencies): Router {
  const router = Router();
  const { commands, clock } = deps;
  const actor = 'api';
  const body = (res: { locals: unknown }) => parseJsonObject((res.locals as RequestContext).body ?? Buffer.alloc(0));

  router.get('/admin/v1/organizations/:org/spend-controls', async (req, res) => {
    res.json(renderSpendControls(await commands.loadOrganization(req.params.org)));
  });

  router.patch('/admin/v1/organizations/:org/spend-controls', async (req, res) => {
    const input = parseBody(spendControlsBody, body(res));
    const orgId = req.params.org;
    if (input.max_concurrent_requests !== undefined) await commands.changeOrganization(orgId, { maxConcurrentRequests: input.max_concurrent_requests }, actor);
    if (input.budget_alerts !== undefined) await commands.setBudgetAlerts(orgId, budgetAlertRulesFromBody(input.budget_alerts), actor);
    res.json(renderSpendControls(await commands.loadOrganization(orgId)));
  });

  router.put('/admin/v1/organizations/:org/webhook', async (req, res) => {
    const input = parseBody(webhookBody, body(res));
    const current = await commands.loadOrganization(req.params.org);
    // the secret is kept when only the URL moves, so the receiver's check goes on working
    const fresh = input.rotate_secret === true || current.webhook === null;
    const webhook = { url: input.url, secret: fresh ? newWebhookSecret() : current.webhook!.secret };
    await commands.setAlertWebhook(current.orgId, webhook, actor);
    res.json(renderWebhook(current.orgId, webhook, fresh));
  });

  router.delete('/admin/v1/organizations/:org/webhook', async (req, res) => {
    const organization = await commands.setAlertWebhook(req.params.org, null, actor);
    res.json(renderSpendControls(organization));
  });

  router.post('/admin/v1/organizations/:org/webhook/test', async (req, res) => {
    const organization = await commands.loadOrganization(req.params.org);
    if (!organization.webhook) throw new GatewayError('invalid_request', 'the organization has no webhook: PUT /organizations/{org}/webhook first');
    const now = clock.now();
    const sample = { organization_id: organization.orgId, message: 'a sample alert: the webhook is reached and its signature checks' };
    const id = await queueTestDelivery(deps.readModels, organization.orgId, alertBody('webhook.test', now.toISOString(), sample), now);
    res.status(201).json(renderDelivery((await findDelivery(deps.readModels, organization.orgId, id))!));
  });

  router.get('/admin/v1/organizations/:org/webhook-deliveries', async (req, res) => {
    const input = parseBody(pageQuery, req.query);
    const orgId = (await commands.loadOrganization(req.params.org)).orgId;
    const limit = input.limit ?? DEFAULT_PAGE_SIZE;
    if (input.after !== undefined && !DELIVERY_ID.test(input.after)) throw new GatewayError('invalid_request', 'after must be a delivery id', { param: 'after' });
    const rows = await listDeliveries(deps.readModels, orgId, limit + 1, input.after ?? null);
    const shown = rows.slice(0, limit).map(renderDelivery);
    const answer: PageRecord<WebhookDeliveryRecord> = { object: 'list', data: shown, first_id: shown[0]?.id ?? null, last_id: shown.at(-1)?.id ?? null, has_more: rows.length > limit };
    res.json(answer);
  });

  router.post('/admin/v1/organizations/:org/webhook-deliveries/:delivery/retry', async (req, res) => {
    const orgId = (await commands.loadOrganization(req.params.org)).orgId;
    const found = DELIVERY_ID.test(req.params.delivery) ? await findDelivery(deps.readModels, orgId, req.params.delivery) : undefined;
    if (!found) throw new GatewayError('resource_not_found', `no webhook delivery ${req.params.delivery} of this organization`);
    if (found.status !== 'failed') throw new GatewayError('invalid_request', `the delivery is ${found.status}: only a failed one is retried`);
    await retryDelivery(deps.readModels, found.delivery_id, clock.now());
    res.json(renderDelivery((await findDelivery(deps.readModels, orgId, found.delivery_id))!));
  });

  return router;
}
