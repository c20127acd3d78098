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
/** A command's outcome as soon as it was decided in memory, and the outcome once its events are durable. */
export interface EarlyOutcome {
  /** What the account decided, its events not yet committed. */
  readonly decided: AccountOutcome;
  /** The outcome as recorded; rejects when the append failed (nothing of the command was recorded). Read it always. */
  readonly durable: Promise<AccountOutcome>;
}

export interface Accounts {
  execute(orgId: string, command: AccountCommand, causedBy: string): Promise<AccountOutcome>;
  /**
   * As `execute`, but answers once the command is decided, while its events commit: a reserve lets the
   * provider call start while its append commits (the pipeline shows the client nothing before `durable`).
   * A command this instance does not decide itself (forwarded to the account's owner) answers when durable.
   */
  executeEarly(orgId: string, command: AccountCommand, causedBy: string): Promise<EarlyOutcome>;
  balance(orgId: string): Promise<{ balance: bigint; reserved: bigint; available: bigint }>;
  saveSnapshot(orgId: string): Promise<void>;
  /** Forgets cached accounts (tests; an admin after restoring a backup). */
  evictAll(): void;
}
