import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { AccessCommands } from '../access/access-commands.js';
import type { Accounts } from '../ledger/accounts.js';
import type {
  EmployeeRecord,
  IssuedKeyRecord,
  KeyRecord,
  OrganizationRecord,
  PageRecord,
  SpaceRecord,
  SpendControlsRecord,
  TeamRecord,
  WebhookDeliveryRecord,
  WebhookRecord,
} from '../admin-records.js';
import { formatUsd, parseUsd } from '../billing/money.js';
import type { AdminApiClient } from '../admin-client/admin-api-client.js';
import { renderEmployee, renderIssuedKey, renderKey, renderOrganization, renderSpace, renderTeam } from './record-renderers.js';
import { keyToIssue, limitPairFromBody, type IssueKeyBody, type LimitPairBody, type SpendControlsBody } from './admin-schemas.js';
import { SpendControls } from './spend-controls.js';

/**
 * What `npm run admin` does, in two implementations with the same results: on the core (the database
 * opened by the CLI) or through the admin API of the gateway that holds the embedded data directory
 * (src/admin-client/running-gateway.ts). Inputs are the admin API's bodies, which the local side converts
 * with the same helpers as the routes; results are the API's records (src/admin-records.ts), rendered by
 * the routes' renderers on the local side, as the CLI has always printed them: teams, employees and spaces
 * without their `object` field.
 */
export interface AdminOperations {
  createOrganization(input: { name: string; piiMasking: boolean; limits: LimitPairBody }): Promise<OrganizationRecord>;
  showOrganization(orgId: string): Promise<OrganizationRecord>;
  setOrganizationStatus(orgId: string, status: 'active' | 'blocked'): Promise<OrganizationRecord>;
  /** The organization's PII masking option: masks its requests that send no X-PII-Masking, allows `on` (spec 5.6). */
  setOrganizationPiiMasking(orgId: string, piiMasking: boolean): Promise<OrganizationRecord>;
  addCredits(orgId: string, amountUsd: string, idempotencyKey: string | undefined): Promise<{ organization_id: string; balance_usd: string }>;
  createTeam(orgId: string, input: { name: string; limits: LimitPairBody }): Promise<WithoutObject<TeamRecord>>;
  createEmployee(orgId: string, input: { name: string; teamId: string | null; limits: LimitPairBody }): Promise<WithoutObject<EmployeeRecord>>;
  createSpace(orgId: string, input: { name: string }): Promise<WithoutObject<SpaceRecord>>;
  issueKey(orgId: string, input: IssueKeyBody): Promise<IssuedKeyRecord>;
  showKey(keyId: string): Promise<KeyRecord>;
  revokeKey(keyId: string): Promise<KeyRecord>;
  /** A key's concurrency and cost caps (null removes one; a field left out is kept). */
  setKeyCaps(keyId: string, caps: { max_concurrent_requests?: number | null; max_cost_per_request_usd?: string | null }): Promise<KeyRecord>;
  showSpendControls(orgId: string): Promise<SpendControlsRecord>;
  changeSpendControls(orgId: string, input: SpendControlsBody): Promise<SpendControlsRecord>;
  setWebhook(orgId: string, url: string, rotateSecret: boolean): Promise<WebhookRecord>;
  removeWebhook(orgId: string): Promise<SpendControlsRecord>;
  testWebhook(orgId: string): Promise<WebhookDeliveryRecord>;
  webhookDeliveries(orgId: string): Promise<PageRecord<WebhookDeliveryRecord>>;
}

type WithoutObject<R extends { object: string }> = Omit<R, 'object'>;

const withoutObject = <R extends { object: string }>({ object: _object, ...record }: R): WithoutObject<R> => record;

export function localAdminOperations(
  core: { readonly commands: AccessCommands; readonly accounts: Accounts; readonly database: { readonly kysely: Kysely<object> } },
  clock: Clock,
  actor: string,
): AdminOperations {
  const { commands, accounts } = core;
  const controls = new SpendControls(commands, core.database.kysely, clock, actor);
  const organization = async (orgId: string) => renderOrganization(await commands.loadOrganization(orgId), await accounts.balance(orgId));
  return {
    async createOrganization({ name, piiMasking, limits }) {
      const created = await commands.createOrganization({ name, piiMasking, spendLimits: limitPairFromBody(limits) }, actor);
      return organization(created.orgId);
    },
    showOrganization: organization,
    async setOrganizationStatus(orgId, status) {
      await commands.changeOrganization(orgId, { status }, actor);
      return organization(orgId);
    },
    async setOrganizationPiiMasking(orgId, piiMasking) {
      await commands.changeOrganization(orgId, { piiMasking }, actor);
      return organization(orgId);
    },
    async addCredits(orgId, amountUsd, idempotencyKey) {
      const balance = await commands.addCredits(orgId, parseUsd(amountUsd), idempotencyKey, actor);
      return { organization_id: orgId, balance_usd: formatUsd(balance) };
    },
    async createTeam(orgId, { name, limits }) {
      const team = { name, spendLimits: limitPairFromBody(limits) };
      return withoutObject(renderTeam(orgId, await commands.createTeam(orgId, team, actor), team));
    },
    async createEmployee(orgId, { name, teamId, limits }) {
      const employee = { name, teamId, spendLimits: limitPairFromBody(limits) };
      return withoutObject(renderEmployee(orgId, await commands.createEmployee(orgId, employee, actor), employee));
    },
    async createSpace(orgId, { name }) {
      return withoutObject(renderSpace(orgId, await commands.createSpace(orgId, { name }, actor), { name }));
    },
    async issueKey(orgId, input) {
      const { secret, key } = await commands.issueKey(orgId, keyToIssue(input), actor);
      return renderIssuedKey(key, secret, clock.now());
    },
    showKey: async (keyId) => renderKey(await commands.loadKey(keyId), clock.now()),
    revokeKey: async (keyId) => renderKey(await commands.revokeKey(keyId, actor), clock.now()),
    async setKeyCaps(keyId, caps) {
      const changes = {
        ...(caps.max_concurrent_requests !== undefined ? { maxConcurrentRequests: caps.max_concurrent_requests } : {}),
        ...(caps.max_cost_per_request_usd !== undefined ? { maxCostPerRequest: caps.max_cost_per_request_usd === null ? null : String(parseUsd(caps.max_cost_per_request_usd)) } : {}),
      };
      return renderKey(await commands.changeKey(keyId, changes, actor), clock.now());
    },
    showSpendControls: (orgId) => controls.show(orgId),
    changeSpendControls: (orgId, input) => controls.change(orgId, input),
    setWebhook: (orgId, url, rotateSecret) => controls.setWebhook(orgId, { url, rotate_secret: rotateSecret }),
    removeWebhook: (orgId) => controls.removeWebhook(orgId),
    testWebhook: (orgId) => controls.sendTest(orgId),
    webhookDeliveries: (orgId) => controls.deliveries(orgId, {}),
  };
}

/** The same operations through the admin API. */
export function remoteAdminOperations(api: AdminApiClient): AdminOperations {
  const path = encodeURIComponent;
  return {
    createOrganization: ({ name, piiMasking, limits }) => api.json('POST', '/organizations', { name, pii_masking: piiMasking, spend_limits: limits }),
    showOrganization: (orgId) => api.json('GET', `/organizations/${path(orgId)}`),
    setOrganizationStatus: (orgId, status) => api.json('PATCH', `/organizations/${path(orgId)}`, { status }),
    setOrganizationPiiMasking: (orgId, piiMasking) => api.json('PATCH', `/organizations/${path(orgId)}`, { pii_masking: piiMasking }),
    async addCredits(orgId, amountUsd, idempotencyKey) {
      const headers: Record<string, string> = idempotencyKey ? { 'idempotency-key': idempotencyKey } : {};
      const organization = await api.json<OrganizationRecord>('POST', `/organizations/${path(orgId)}/credits`, { amount_usd: amountUsd }, headers);
      return { organization_id: orgId, balance_usd: organization.balance_usd };
    },
    createTeam: async (orgId, { name, limits }) => withoutObject(await api.json<TeamRecord>('POST', `/organizations/${path(orgId)}/teams`, { name, spend_limits: limits })),
    createEmployee: async (orgId, { name, teamId, limits }) =>
      withoutObject(await api.json<EmployeeRecord>('POST', `/organizations/${path(orgId)}/employees`, { name, team_id: teamId, spend_limits: limits })),
    createSpace: async (orgId, { name }) => withoutObject(await api.json<SpaceRecord>('POST', `/organizations/${path(orgId)}/spaces`, { name })),
    issueKey: (orgId, input) => api.json('POST', `/organizations/${path(orgId)}/keys`, input),
    showKey: (keyId) => api.json('GET', `/keys/${path(keyId)}`),
    revokeKey: (keyId) => api.json('POST', `/keys/${path(keyId)}/revoke`),
    setKeyCaps: (keyId, caps) => api.json('PATCH', `/keys/${path(keyId)}`, caps),
    showSpendControls: (orgId) => api.json('GET', `/organizations/${path(orgId)}/spend-controls`),
    changeSpendControls: (orgId, input) => api.json('PATCH', `/organizations/${path(orgId)}/spend-controls`, input),
    setWebhook: (orgId, url, rotateSecret) => api.json('PUT', `/organizations/${path(orgId)}/webhook`, { url, rotate_secret: rotateSecret }),
    removeWebhook: (orgId) => api.json('DELETE', `/organizations/${path(orgId)}/webhook`),
    testWebhook: (orgId) => api.json('POST', `/organizations/${path(orgId)}/webhook/test`),
    webhookDeliveries: (orgId) => api.json('GET', `/organizations/${path(orgId)}/webhook-deliveries`),
  };
}
