import type { ModelCategory } from '../billing/categories.js';
import type { SpendOwner } from './account-events.js';

/**
 * The names of the spend counters of an account, in one place: the account state counts a request's
 * spend under them (`spendScopes`), and the decider checks each limit against the counter of its scope.
 * Snapshots store counters by these names, so a name never changes meaning.
 */
export const spendScope = {
  key: (keyId: string) => `key:${keyId}`,
  keyByType: (keyId: string, category: ModelCategory) => `key:${keyId}:type:${category}`,
  keyByModel: (keyId: string, model: string) => `key:${keyId}:model:${model}`,
  employee: (employeeId: string) => `employee:${employeeId}`,
  team: (teamId: string) => `team:${teamId}`,
  organization: 'organization',
} as const;

/** Every counter a request's spend counts against. */
export function spendScopes(owner: SpendOwner, category: ModelCategory, model: string): string[] {
  const scopes = [spendScope.key(owner.keyId), spendScope.keyByType(owner.keyId, category), spendScope.keyByModel(owner.keyId, model), spendScope.organization];
  if (owner.employeeId) scopes.push(spendScope.employee(owner.employeeId));
  if (owner.teamId) scopes.push(spendScope.team(owner.teamId));
  return scopes;
}
