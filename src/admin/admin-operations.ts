import { DEFAULT_RPM, DEFAULT_TPM } from '../access/access-events.js';
import type { Clock } from '../clock.js';
import type { AccessCommands } from '../access/access-commands.js';
import type { Accounts } from '../ledger/accounts.js';
import { formatUsd, parseUsd } from '../billing/money.js';
import type { AdminApiClient } from './admin-api-client.js';
import { keyLimitsFromBody, limitPairFromBody, renderKey, renderLimitPair, renderOrganization } from './admin-records.js';
import type { LimitPairBody } from './admin-schemas.js';

/**
 * What `npm run admin` does, in two implementations with the same results: on the core (the database
 * opened by the CLI) or through the admin API of the gateway that holds the embedded data directory
 * (running-gateway.ts). Inputs are the admin API's bodies, which the local side converts with the same
 * helpers as the routes; results are the records the CLI has always printed.
 */
export interface KeyInput {
  readonly name: string | null;
  readonly employeeId: string | null;
  readonly models: string[] | null;
  readonly limits: LimitPairBody;
  readonly rpm: number | undefined;
  readonly tpm: number | undefined;
  readonly expiresAt: string | null;
}

export interface AdminOperations {
  createOrganization(input: { name: string; piiMasking: boolean; limits: LimitPairBody }): Promise<unknown>;
  showOrganization(orgId: string): Promise<unknown>;
  setOrganizationStatus(orgId: string, status: 'active' | 'blocked'): Promise<unknown>;
  addCredits(orgId: string, amountUsd: string, idempotencyKey: string | undefined): Promise<{ organization_id: string; balance_usd: string }>;
  createTeam(orgId: string, input: { name: string; limits: LimitPairBody }): Promise<unknown>;
  createEmployee(orgId: string, input: { name: string; teamId: string | null; limits: LimitPairBody }): Promise<unknown>;
  createSpace(orgId: string, input: { name: string }): Promise<unknown>;
  issueKey(orgId: string, input: KeyInput): Promise<unknown>;
  showKey(keyId: string): Promise<unknown>;
  revokeKey(keyId: string): Promise<unknown>;
}

export function localAdminOperations(core: { readonly commands: AccessCommands; readonly accounts: Accounts }, clock: Clock, actor: string): AdminOperations {
  const { commands, accounts } = core;
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
    async addCredits(orgId, amountUsd, idempotencyKey) {
      const balance = await commands.addCredits(orgId, parseUsd(amountUsd), idempotencyKey, actor);
      return { organization_id: orgId, balance_usd: formatUsd(balance) };
    },
    async createTeam(orgId, { name, limits }) {
      const id = await commands.createTeam(orgId, { name, spendLimits: limitPairFromBody(limits) }, actor);
      return { id, organization_id: orgId, name, spend_limits: renderLimitPair(limitPairFromBody(limits)) };
    },
    async createEmployee(orgId, { name, teamId, limits }) {
      const id = await commands.createEmployee(orgId, { name, teamId, spendLimits: limitPairFromBody(limits) }, actor);
      return { id, organization_id: orgId, name, team_id: teamId, spend_limits: renderLimitPair(limitPairFromBody(limits)) };
    },
    async createSpace(orgId, { name }) {
      const id = await commands.createSpace(orgId, { name }, actor);
      return { id, organization_id: orgId, name };
    },
    async issueKey(orgId, input) {
      const { secret, key } = await commands.issueKey(
        orgId,
        {
          name: input.name,
          employeeId: input.employeeId,
          models: input.models,
          limits: keyLimitsFromBody(input.limits),
          rpm: input.rpm ?? DEFAULT_RPM,
          tpm: input.tpm ?? DEFAULT_TPM,
          expiresAt: input.expiresAt,
        },
        actor,
      );
      return { ...renderKey(key, clock.now()), key: secret };
    },
    showKey: async (keyId) => renderKey(await commands.loadKey(keyId), clock.now()),
    revokeKey: async (keyId) => renderKey(await commands.revokeKey(keyId, actor), clock.now()),
  };
}

/** The same operations through the admin API; records lose the API's `object` field where the CLI never printed one. */
export function remoteAdminOperations(api: AdminApiClient): AdminOperations {
  const path = encodeURIComponent;
  const withoutObject = ({ object: _object, ...record }: Record<string, unknown>) => record;
  return {
    createOrganization: ({ name, piiMasking, limits }) => api.json('POST', '/organizations', { name, pii_masking: piiMasking, spend_limits: limits }),
    showOrganization: (orgId) => api.json('GET', `/organizations/${path(orgId)}`),
    setOrganizationStatus: (orgId, status) => api.json('PATCH', `/organizations/${path(orgId)}`, { status }),
    async addCredits(orgId, amountUsd, idempotencyKey) {
      const organization = await api.json('POST', `/organizations/${path(orgId)}/credits`, { amount_usd: amountUsd }, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {});
      return { organization_id: orgId, balance_usd: organization.balance_usd };
    },
    createTeam: async (orgId, { name, limits }) => withoutObject(await api.json('POST', `/organizations/${path(orgId)}/teams`, { name, spend_limits: limits })),
    createEmployee: async (orgId, { name, teamId, limits }) =>
      withoutObject(await api.json('POST', `/organizations/${path(orgId)}/employees`, { name, team_id: teamId, spend_limits: limits })),
    createSpace: async (orgId, { name }) => withoutObject(await api.json('POST', `/organizations/${path(orgId)}/spaces`, { name })),
    issueKey: (orgId, input) =>
      api.json('POST', `/organizations/${path(orgId)}/keys`, {
        name: input.name,
        employee_id: input.employeeId,
        models: input.models,
        limits: input.limits,
        ...(input.rpm === undefined ? {} : { rpm: input.rpm }),
        ...(input.tpm === undefined ? {} : { tpm: input.tpm }),
        expires_at: input.expiresAt,
      }),
    showKey: (keyId) => api.json('GET', `/keys/${path(keyId)}`),
    revokeKey: (keyId) => api.json('POST', `/keys/${path(keyId)}/revoke`),
  };
}
