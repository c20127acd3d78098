import { GatewayError } from '../errors/gateway-error.js';
import type { KeyEvent, KeySettings } from './access-events.js';
import type { OrganizationState } from './organization-decider.js';

/** The state of one `key-<keyId>` stream, and its pure decider. */
export interface KeyState extends KeySettings {
  readonly exists: boolean;
  readonly keyId: string;
  readonly orgId: string;
  readonly name: string | null;
  readonly employeeId: string | null;
  readonly secretHash: string;
  readonly secretHint: string;
  readonly revoked: boolean;
}

export const initialKeyState: KeyState = {
  exists: false,
  keyId: '',
  orgId: '',
  name: null,
  employeeId: null,
  secretHash: '',
  secretHint: '',
  revoked: false,
  models: null,
  limits: { overall: { daily: null, monthly: null }, byType: {}, byModel: {} },
  rpm: 0,
  tpm: 0,
  expiresAt: null,
  maxConcurrentRequests: null,
  maxCostPerRequest: null,
};

export function evolveKey(state: KeyState, event: KeyEvent): KeyState {
  switch (event.type) {
    case 'KeyIssued':
      return { ...state, ...event.data, exists: true };
    case 'KeyChanged':
      return { ...state, ...event.data };
    case 'KeyRevoked':
      return { ...state, revoked: true };
  }
}

export type KeyCommand =
  | (KeySettings & { type: 'IssueKey'; keyId: string; name: string | null; employeeId: string | null; secretHash: string; secretHint: string })
  | { type: 'ChangeKey'; changes: Partial<KeySettings> }
  | { type: 'RevokeKey' };

/** The events a command leads to, or why it is refused (the command layer throws the refusal). */
export type KeyDecision = { readonly events: KeyEvent[] } | { readonly rejection: GatewayError };

/** Issuing needs the organization: the key's employee must belong to it, and a blocked one issues nothing. */
export function decideKey(state: KeyState, command: KeyCommand, organization: OrganizationState): KeyDecision {
  switch (command.type) {
    case 'IssueKey': {
      if (state.exists) return reject('invalid_request', `key ${command.keyId} already exists`);
      if (!organization.exists) return reject('resource_not_found', 'no such organization');
      if (command.employeeId !== null && !organization.employees.has(command.employeeId)) {
        return reject('invalid_request', `employee_id ${command.employeeId} is not an employee of this organization`, 'employee_id');
      }
      const { type: _type, ...data } = command;
      return { events: [{ type: 'KeyIssued', data: { ...data, orgId: organization.orgId } }] };
    }
    case 'ChangeKey': {
      if (!state.exists) return reject('resource_not_found', 'no such key');
      if (state.revoked) return reject('invalid_request', 'the key is revoked; issue a new one');
      return { events: Object.keys(command.changes).length === 0 ? [] : [{ type: 'KeyChanged', data: command.changes }] };
    }
    case 'RevokeKey':
      if (!state.exists) return reject('resource_not_found', 'no such key');
      return { events: state.revoked ? [] : [{ type: 'KeyRevoked', data: {} }] };
  }
}

function reject(code: 'invalid_request' | 'resource_not_found', message: string, param?: string): KeyDecision {
  return { rejection: new GatewayError(code, message, param === undefined ? {} : { param }) };
}

export type KeyStatus = 'valid' | 'revoked' | 'expired';

/** A key's status at `now`: expiry is a matter of time, so it is derived, never stored. */
export function keyStatus(key: KeyState, now: Date): KeyStatus {
  if (key.revoked) return 'revoked';
  if (key.expiresAt !== null && new Date(key.expiresAt) <= now) return 'expired';
  return 'valid';
}
