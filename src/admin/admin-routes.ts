import { Router } from 'express';
import type { AccessCommands } from '../access/access-commands.js';
import type { KeySettings } from '../access/access-events.js';
import type { CatalogStore } from '../catalog/catalog-store.js';
import type { PriceBook } from '../prices/price-book.js';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors/gateway-error.js';
import { DEFAULT_BODY_LIMIT } from '../endpoints/body-limits.js';
import { parseJsonObject, readBody } from '../http/request-body.js';
import type { RequestContext } from '../http/request-context.js';
import type { SignInThrottle } from '../http/sign-in-throttle.js';
import type { Accounts } from '../ledger/accounts.js';
import type { Kysely } from 'kysely';
import { spendReport } from './spend-report.js';
import { adminAccess } from './admin-access.js';
import { adminListRoutes } from './admin-list-routes.js';
import { videoJobRoutes } from './video-job-routes.js';
import { dailySpendRoutes } from './daily-spend.js';
import type { DeploymentHealth } from '../pipeline/deployment-health.js';
import { catalogModelsRoute } from './catalog-models-route.js';
import { deploymentsRoute } from './deployments-route.js';
import { requestLogRoutes } from './request-log-routes.js';
import { overviewRoute } from './overview-route.js';
import { spendControlRoutes } from './spend-control-routes.js';
import type { EventStore } from '../eventstore/event-store.js';
import { parseUsd } from '../billing/money.js';
import { isId } from '../ids/random-id.js';
import { renderEmployee, renderIssuedKey, renderKey, renderList, renderOrganization, renderSpace, renderTeam } from './record-renderers.js';
import {
  changeKeyBody,
  changeOrganizationBody,
  createOrganizationBody,
  creditsBody,
  employeeBody,
  issueKeyBody,
  keyLimitsFromBody,
  keyToIssue,
  limitPairFromBody,
  parseBody,
  spaceBody,
  teamBody,
} from './admin-schemas.js';

export interface AdminDependencies {
  readonly adminToken: string | undefined;
  readonly commands: AccessCommands;
  readonly accounts: Accounts;
  readonly catalog: CatalogStore;
  /** The price versions (the models routes show and set them). */
  readonly prices: PriceBook;
  readonly clock: Clock;
  /** The read models (spend report, request log). */
  readonly readModels: Kysely<object>;
  /** The event log: a request's events for the request log. */
  readonly store: EventStore;
  /** Counts and throttles wrong admin tokens per client address. */
  readonly signIns?: SignInThrottle;
  /** The deployments' health on this instance (the deployments route). */
  readonly deploymentHealth?: DeploymentHealth;
}

/**
 * The admin API under `/admin/v1` (docs/operator-guide.md, "Admin API"). Every route needs `Authorization:
 * Bearer <ADMIN_TOKEN>` or the console's session cookie (with its CSRF header for a change: admin-access.ts).
 */
export function adminRoutes(deps: AdminDependencies): Router {
  const router = Router();
  const { commands, accounts, catalog, clock } = deps;
  const actor = 'api';
  router.use('/admin/v1', adminAccess(deps.adminToken, clock, deps.signIns));
  // An organization or key id of another shape names nothing (and some of its bytes the stores refuse).
  router.use('/admin/v1', (req, _res, next) => {
    const named = /^\/(organizations|keys)\/([^/]+)/.exec(req.path);
    const prefix = named?.[1] === 'keys' ? 'key' : 'org';
    next(named && !isId(prefix, named[2]) ? new GatewayError('resource_not_found', `no ${prefix === 'key' ? 'key' : 'organization'} ${named[2]!.slice(0, 80)}`) : undefined);
  });
  // Bodies are read once the token is checked, within the usual limit.
  router.use('/admin/v1', async (req, res, next) => {
    if (req.method === 'POST' || req.method === 'PATCH' || req.method === 'PUT') (res.locals as RequestContext).body = await readBody(req, DEFAULT_BODY_LIMIT);
    next();
  });

  const body = (res: { locals: unknown }) => parseJsonObject((res.locals as RequestContext).body ?? Buffer.alloc(0));
  const organizationRecord = async (orgId: string) => {
    const organization = await commands.loadOrganization(orgId);
    return renderOrganization(organization, await accounts.balance(orgId));
  };
  const checkModels = (input: { models?: string[] | null; limits?: { by_model?: Record<string, unknown> } }) => {
    for (const [field, models] of [['models', input.models ?? []], ['limits.by_model', Object.keys(input.limits?.by_model ?? {})]] as const) {
      for (const model of models) {
        if (!catalog.findModel(model)) throw new GatewayError('invalid_request', `${field}: model ${model} is not in the catalog`, { param: field });
      }
    }
  };

  router.use(adminListRoutes(deps));
  router.use(videoJobRoutes(deps));
  router.use(dailySpendRoutes(deps));
  router.use(catalogModelsRoute(deps));
  router.use(deploymentsRoute(deps));
  router.use(requestLogRoutes(deps));
  router.use(overviewRoute(deps));
  router.use(spendControlRoutes(deps));

  router.post('/admin/v1/organizations', async (_req, res) => {
    const input = parseBody(createOrganizationBody, body(res));
    const organization = await commands.createOrganization(
      { name: input.name, piiMasking: input.pii_masking ?? false, spendLimits: limitPairFromBody(input.spend_limits) },
      actor,
    );
    res.status(201).json(await organizationRecord(organization.orgId));
  });

  router.get('/admin/v1/organizations/:org', async (req, res) => {
    res.json(await organizationRecord(req.params.org));
  });

  router.patch('/admin/v1/organizations/:org', async (req, res) => {
    const input = parseBody(changeOrganizationBody, body(res));
    const current = await commands.loadOrganization(req.params.org);
    await commands.changeOrganization(
      req.params.org,
      {
        ...(input.status ? { status: input.status } : {}),
        ...(input.pii_masking !== undefined ? { piiMasking: input.pii_masking } : {}),
        ...(input.spend_limits ? { spendLimits: limitPairFromBody(input.spend_limits, current.spendLimits) } : {}),
      },
      actor,
    );
    res.json(await organizationRecord(req.params.org));
  });

  router.post('/admin/v1/organizations/:org/credits', async (req, res) => {
    const input = parseBody(creditsBody, body(res));
    const idempotencyKey = req.get('idempotency-key')?.trim() || undefined;
    await commands.addCredits(req.params.org, parseUsd(input.amount_usd), idempotencyKey, actor);
    res.json(await organizationRecord(req.params.org));
  });

  router.get('/admin/v1/organizations/:org/spend', async (req, res) => {
    await commands.loadOrganization(req.params.org);
    res.json(await spendReport(deps.readModels, req.params.org, req.query, clock.now()));
  });

  router.post('/admin/v1/organizations/:org/teams', async (req, res) => {
    const input = parseBody(teamBody, body(res));
    const team = { name: input.name, spendLimits: limitPairFromBody(input.spend_limits) };
    const teamId = await commands.createTeam(req.params.org, team, actor);
    res.status(201).json(renderTeam(req.params.org, teamId, team));
  });

  router.get('/admin/v1/organizations/:org/teams', async (req, res) => {
    const organization = await commands.loadOrganization(req.params.org);
    res.json(renderList([...organization.teams].map(([id, team]) => renderTeam(organization.orgId, id, team))));
  });

  router.post('/admin/v1/organizations/:org/employees', async (req, res) => {
    const input = parseBody(employeeBody, body(res));
    const employee = { name: input.name, teamId: input.team_id ?? null, spendLimits: limitPairFromBody(input.spend_limits) };
    const employeeId = await commands.createEmployee(req.params.org, employee, actor);
    res.status(201).json(renderEmployee(req.params.org, employeeId, employee));
  });

  router.get('/admin/v1/organizations/:org/employees', async (req, res) => {
    const organization = await commands.loadOrganization(req.params.org);
    res.json(renderList([...organization.employees].map(([id, employee]) => renderEmployee(organization.orgId, id, employee))));
  });

  router.post('/admin/v1/organizations/:org/spaces', async (req, res) => {
    const input = parseBody(spaceBody, body(res));
    const space = { name: input.name };
    const spaceId = await commands.createSpace(req.params.org, space, actor);
    res.status(201).json(renderSpace(req.params.org, spaceId, space));
  });

  router.get('/admin/v1/organizations/:org/spaces', async (req, res) => {
    const organization = await commands.loadOrganization(req.params.org);
    res.json(renderList([...organization.spaces].map(([id, space]) => renderSpace(organization.orgId, id, space))));
  });

  router.post('/admin/v1/organizations/:org/keys', async (req, res) => {
    const input = parseBody(issueKeyBody, body(res));
    checkModels(input);
    const { secret, key } = await commands.issueKey(req.params.org, keyToIssue(input), actor);
    res.status(201).json(renderIssuedKey(key, secret, clock.now()));
  });

  router.get('/admin/v1/organizations/:org/keys', async (req, res) => {
    await commands.loadOrganization(req.params.org);
    const keys = await commands.keysOf(req.params.org);
    res.json(renderList(keys.map((key) => renderKey(key, clock.now()))));
  });

  router.get('/admin/v1/keys/:key', async (req, res) => {
    res.json(renderKey(await commands.loadKey(req.params.key), clock.now()));
  });

  router.patch('/admin/v1/keys/:key', async (req, res) => {
    const input = parseBody(changeKeyBody, body(res));
    checkModels(input);
    const changes: Partial<KeySettings> = {};
    if (input.models !== undefined) changes.models = input.models;
    if (input.limits !== undefined) changes.limits = keyLimitsFromBody(input.limits);
    if (input.rpm !== undefined) changes.rpm = input.rpm;
    if (input.tpm !== undefined) changes.tpm = input.tpm;
    if (input.expires_at !== undefined) changes.expiresAt = input.expires_at === null ? null : new Date(input.expires_at).toISOString();
    if (input.max_concurrent_requests !== undefined) changes.maxConcurrentRequests = input.max_concurrent_requests;
    if (input.max_cost_per_request_usd !== undefined) changes.maxCostPerRequest = input.max_cost_per_request_usd === null ? null : String(parseUsd(input.max_cost_per_request_usd));
    res.json(renderKey(await commands.changeKey(req.params.key, changes, actor), clock.now()));
  });

  router.post('/admin/v1/keys/:key/revoke', async (req, res) => {
    res.json(renderKey(await commands.revokeKey(req.params.key, actor), clock.now()));
  });

  return router;
}
