import { Router } from 'express';
import type { Kysely } from 'kysely';
import type { AccessCommands } from '../access/access-commands.js';
import type { PageRecord, RequestDetailRecord, RequestLogRecord } from '../admin-records.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { EventStore } from '../eventstore/event-store.js';
import { DEFAULT_REQUEST_PAGE, parseRequestLogQuery, requestLogPage, requestLogRow, type RequestLogQuery } from './request-log-query.js';
import { renderRequest, requestEvents } from './request-log-records.js';

/**
 * The request log (docs/operator-guide.md, "Admin API"), from the ledger's `requests` read model:
 * - `GET /admin/v1/requests?…` and `GET /admin/v1/organizations/{org}/requests?…`: pages newest first,
 *   filtered by key, model, space, endpoint, status and time (request-log-query.ts);
 * - `GET /admin/v1/requests/{id}`: one request with its events from the event log (its audit trail).
 * The read model follows the log within a fraction of a second, so a request shows here a moment after
 * its answer. Message contents are never in it.
 */
export function requestLogRoutes(deps: { readonly readModels: Kysely<object>; readonly store: EventStore; readonly commands: AccessCommands }): Router {
  const router = Router();
  const db = deps.readModels;

  const page = async (orgId: string | undefined, input: RequestLogQuery): Promise<PageRecord<RequestLogRecord>> => {
    const limit = input.limit ?? DEFAULT_REQUEST_PAGE;
    const rows = await requestLogPage(db, orgId, input, limit);
    const shown = rows.slice(0, limit).map(renderRequest);
    return { object: 'list', data: shown, first_id: shown[0]?.id ?? null, last_id: shown.at(-1)?.id ?? null, has_more: rows.length > limit };
  };

  router.get('/admin/v1/requests', async (req, res) => {
    res.json(await page(undefined, parseRequestLogQuery(req.query)));
  });

  router.get('/admin/v1/organizations/:org/requests', async (req, res) => {
    const input = parseRequestLogQuery(req.query);
    await deps.commands.loadOrganization(req.params.org);
    res.json(await page(req.params.org, input));
  });

  router.get('/admin/v1/requests/:id', async (req, res) => {
    const row = await requestLogRow(db, req.params.id);
    if (!row) throw new GatewayError('resource_not_found', `no request ${req.params.id} in the request log (a request refused before its reserve is not logged)`);
    res.json({ ...renderRequest(row), events: await requestEvents(deps.store, row) } satisfies RequestDetailRecord);
  });

  return router;
}
