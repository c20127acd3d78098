import { Router } from 'express';
import type { Kysely } from 'kysely';
import type { AccessCommands } from '../access/access-commands.js';
import type { Clock } from '../clock.js';
import { parseJsonObject } from '../http/request-body.js';
import type { RequestContext } from '../http/request-context.js';
import { pageQuery } from './admin-list-routes.js';
import { parseBody, spendControlsBody, webhookBody } from './admin-schemas.js';
import { SpendControls } from './spend-controls.js';

export interface SpendControlDependencies {
  readonly commands: AccessCommands;
  readonly clock: Clock;
  /** The database of the webhook deliveries (migration 0104). */
  readonly readModels: Kysely<object>;
}

/**
 * The organization's spend controls in the admin API (docs/operator-guide.md, "Spend controls"; the work is
 * in spend-controls.ts, shared with the admin CLI). A key's caps are fields of the key (`PATCH /keys/{key}`).
 */
export function spendControlRoutes(deps: SpendControlDependencies): Router {
  const router = Router();
  const controls = new SpendControls(deps.commands, deps.readModels, deps.clock, 'api');
  const body = (res: { locals: unknown }) => parseJsonObject((res.locals as RequestContext).body ?? Buffer.alloc(0));

  router.get('/admin/v1/organizations/:org/spend-controls', async (req, res) => {
    res.json(await controls.show(req.params.org));
  });
  router.patch('/admin/v1/organizations/:org/spend-controls', async (req, res) => {
    res.json(await controls.change(req.params.org, parseBody(spendControlsBody, body(res))));
  });
  router.put('/admin/v1/organizations/:org/webhook', async (req, res) => {
    res.json(await controls.setWebhook(req.params.org, parseBody(webhookBody, body(res))));
  });
  router.delete('/admin/v1/organizations/:org/webhook', async (req, res) => {
    res.json(await controls.removeWebhook(req.params.org));
  });
  router.post('/admin/v1/organizations/:org/webhook/test', async (req, res) => {
    res.status(201).json(await controls.sendTest(req.params.org));
  });
  router.get('/admin/v1/organizations/:org/webhook-deliveries', async (req, res) => {
    res.json(await controls.deliveries(req.params.org, parseBody(pageQuery, req.query)));
  });
  router.post('/admin/v1/organizations/:org/webhook-deliveries/:delivery/retry', async (req, res) => {
    res.json(await controls.retry(req.params.org, req.params.delivery));
  });
  return router;
}
