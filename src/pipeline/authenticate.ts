import type { IncomingHttpHeaders } from 'node:http';
import type { AccessDirectory } from '../access/access-directory.js';
import { keyStatus, type KeyState } from '../access/key-decider.js';
import { hashKeySecret } from '../access/key-secret.js';
import type { OrganizationState } from '../access/organization-decider.js';
import { GatewayError } from '../errors/gateway-error.js';

export interface Caller {
  readonly key: KeyState;
  readonly organization: OrganizationState;
  /** The space the spend is assigned to (`X-Service-Space`), when the request names one. */
  readonly spaceId: string | null;
}

/**
 * Spec 5: the key comes in `Authorization: Bearer <key>` or `x-api-key: <key>` (either is enough).
 * Missing, unknown, revoked or expired → 401 invalid_api_key; a blocked organization → 403.
 * One hash and one map lookup; the directory is kept current by events only.
 */
export function authenticate(headers: IncomingHttpHeaders, directory: AccessDirectory, now: Date): Caller {
  const secret = presentedSecret(headers);
  if (!secret) throw new GatewayError('invalid_api_key', 'no API key: send Authorization: Bearer <key> or x-api-key: <key>');
  return callerOf(directory.keyBySecretHash(hashKeySecret(secret)), directory, now, requestedSpace(headers));
}

/**
 * The same checks again on the directory's current state of an authenticated caller's key (after the
 * directory was refreshed because a reserve was decided on older access data).
 */
export function reauthenticate(caller: Caller, directory: AccessDirectory, now: Date): Caller {
  return callerOf(directory.key(caller.key.keyId), directory, now, caller.spaceId);
}

function callerOf(key: KeyState | undefined, directory: AccessDirectory, now: Date, spaceId: string | null): Caller {
  if (!key) throw new GatewayError('invalid_api_key');
  const status = keyStatus(key, now);
  if (status !== 'valid') throw new GatewayError('invalid_api_key', `the API key is ${status}`);
  const organization = directory.organization(key.orgId);
  if (!organization?.exists) throw new GatewayError('invalid_api_key');
  if (organization.status !== 'active') throw new GatewayError('account_blocked');
  if (spaceId !== null && !organization.spaces.has(spaceId)) {
    throw new GatewayError('invalid_space', `X-Service-Space ${spaceId} is not a space of this organization`);
  }
  return { key, organization, spaceId };
}

function presentedSecret(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  if (authorization) {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (match) return match[1]!.trim();
  }
  const apiKey = headers['x-api-key'];
  const value = Array.isArray(apiKey) ? apiKey[0] : apiKey;
  return value?.trim() || undefined;
}

/** `X-Service-Space`: it must name a space of the key's own organization (checked in `callerOf`). */
function requestedSpace(headers: IncomingHttpHeaders): string | null {
  const header = headers['x-service-space'];
  return (Array.isArray(header) ? header[0] : header)?.trim() || null;
}

/** Whether the key may use the model (an absent list allows every model of the catalog). */
export function keyAllowsModel(key: KeyState, modelId: string): boolean {
  return key.models === null || key.models.includes(modelId);
}
