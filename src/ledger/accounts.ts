import type { AccountCommand, AccountDecision } from './account-decider.js';

export interface AccountOutcome {
  readonly decision: AccountDecision;
  /** Balance and reserved amount right after this command's events (or unchanged when it had none). */
  readonly balance: bigint;
  readonly reserved: bigint;
}

/**
 * What the pipeline, the access commands and the admin API ask of the accounts: run a command on an
 * organization's account, read its balance. `AccountService` runs them in this process; `OwnedAccounts`
 * (owners/) sends an account's commands to the instance that owns it, so two instances do not both
 * decide on one hot account.
 */
export interface Accounts {
  execute(orgId: string, command: AccountCommand, causedBy: string): Promise<AccountOutcome>;
  balance(orgId: string): Promise<{ balance: bigint; reserved: bigint; available: bigint }>;
  saveSnapshot(orgId: string): Promise<void>;
  /** Forgets cached accounts (tests; an admin after restoring a backup). */
  evictAll(): void;
}
