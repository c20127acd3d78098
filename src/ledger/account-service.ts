import type { Clock } from '../clock.js';
import { isConnectionFailure } from '../errors/connection-failure.js';
import { AppendCoalescer, appendsToManyStreams } from '../eventstore/append-coalescer.js';
import { WrongExpectedRevisionError, type AppendResult, type EventStore, type EventToAppend, type ExpectedRevision, type ReadStreamOptions, type RecordedEvent } from '../eventstore/event-store.js';
import type { Logger } from '../logger.js';
import { closesUnknownReservation, decideBatch, type DecidedBatch } from './account-batch.js';
import type { AccountCommand } from './account-decider.js';
import { decodeAccountEvent } from './account-event-catalogue.js';
import { accountStreamId } from './account-events.js';
import type { AccountSnapshotStore } from './account-snapshot.js';
import type { AccountOutcome, Accounts, EarlyOutcome } from './accounts.js';
import { applyAccountEvent, availableOf, balanceOf, cloneAccountState, emptyAccountState, type AccountState } from './account-state.js';

/**
 * Runs account commands against the `account-<orgId>` streams, race-free across instances.
 *
 * Each account is kept in memory (state + stream revision). Commands that arrive while an append is in
 * flight queue up and are decided together, one after the other against the evolving state, and their
 * events go out in ONE append with the expected revision: a hot organization costs one round trip per
 * batch, not per request; and where the store appends to several streams at once, the batches of different
 * accounts that are ready together share one write and one commit (AppendCoalescer). A conflict (another
 * instance appended) reads the stream's tail and decides the batch again, under the stream's write lock
 * where the store has one (see runBatch). Loading an account reads its snapshot and the tail after it,
 * never the whole history.
 */
const CATCH_UP_PAGE = 5_000;

/**
 * After a lost race, this many batches in a row go straight to the stream lock (where the store has one)
 * before the next optimistic attempt; a locked batch that finds another instance's events on the stream
 * starts the count again. With two instances on one busy account about half the optimistic appends lost,
 * and each loss cost a wasted decision, a refused append the size of the batch, and then the lock anyway.
 */
export const CONTENDED_BATCHES = 32;

/**
 * A decision is told early (`executeEarly`) only when it will stand: made under the stream lock, or
 * optimistically on an account whose last this many optimistic batches all committed. A batch that loses
 * a race is decided again, and an early reserve decided again as a refusal would have had its provider
 * call started for nothing; with two instances deciding on one account, the first batches race.
 */
export const QUIET_BEFORE_EARLY = 16;

interface Pending {
  readonly command: AccountCommand;
  readonly causedBy: string;
  resolve(outcome: AccountOutcome): void;
  reject(error: unknown): void;
  /** Told the command's outcome as soon as it is decided, before its events commit (`executeEarly`); once. */
  decided?: ((outcome: AccountOutcome) => void) | undefined;
}

interface Account {
  state: AccountState;
  revision: bigint | 'no_stream';
  eventsSinceSnapshot: number;
  /** Batches left that take the stream lock at once (see CONTENDED_BATCHES); 0 while no one else appends. */
  contended: number;
  /** Optimistic batches committed in a row without a lost race (see QUIET_BEFORE_EARLY). */
  quietBatches: number;
  readonly queue: Pending[];
  flushing: boolean;
}

type TailReader = (options: ReadStreamOptions) => Promise<RecordedEvent[]>;

export interface AccountServiceOptions {
  readonly store: EventStore;
  readonly snapshots: AccountSnapshotStore;
  readonly clock: Clock;
  readonly logger?: Logger;
  /** Commands decided and appended together at most (default 200). */
  readonly maxBatch?: number;
  /** A snapshot is written after this many events (default 1,000). */
  readonly snapshotEvery?: number;
  /** Attempts of one batch before giving up under conflicts (default 20). */
  readonly maxAttempts?: number;
  /** Conflict-free optimistic batches in a row before decisions are told early (default QUIET_BEFORE_EARLY). */
  readonly quietBeforeEarly?: number;
}

export class AccountService implements Accounts {
  private readonly accounts = new Map<string, Promise<Account>>();
  private readonly maxBatch: number;
  private readonly snapshotEvery: number;
  private readonly maxAttempts: number;
  private readonly quietBeforeEarly: number;
  /** The optimistic appends: through the store's group commit across streams where it has one. */
  private readonly appendOptimistically: (streamId: string, events: readonly EventToAppend[], options: { expectedRevision: ExpectedRevision }) => Promise<AppendResult>;

  constructor(private readonly options: AccountServiceOptions) {
    this.maxBatch = options.maxBatch ?? 200;
    this.snapshotEvery = options.snapshotEvery ?? 1_000;
    this.maxAttempts = options.maxAttempts ?? 20;
    this.quietBeforeEarly = options.quietBeforeEarly ?? QUIET_BEFORE_EARLY;
    const { store } = options;
    if (appendsToManyStreams(store)) {
      const coalescer = new AppendCoalescer(store);
      this.appendOptimistically = (streamId, events, appendOptions) => coalescer.append(streamId, events, appendOptions);
    } else {
      this.appendOptimistically = (streamId, events, appendOptions) => store.append(streamId, events, appendOptions);
    }
  }

  execute(orgId: string, command: AccountCommand, causedBy: string): Promise<AccountOutcome> {
    return this.enqueue(orgId, command, causedBy, undefined);
  }

  /**
   * The command's outcome as soon as it is decided, and the same once its events are durable (see
   * `Accounts.executeEarly`). The early outcome may differ from the durable one only when the append lost
   * a race: the batch is then decided again on the stream's tail, and `durable` says what was recorded.
   */
  executeEarly(orgId: string, command: AccountCommand, causedBy: string): Promise<EarlyOutcome> {
    return new Promise<EarlyOutcome>((resolveEarly, rejectEarly) => {
      const durable: Promise<AccountOutcome> = this.enqueue(orgId, command, causedBy, (decided) => resolveEarly({ decided, durable }));
      // failed before it was decided (the account could not be loaded): `durable` has no other reader
      durable.then((outcome) => resolveEarly({ decided: outcome, durable }), rejectEarly);
    });
  }

  private async enqueue(orgId: string, command: AccountCommand, causedBy: string, decided: Pending['decided']): Promise<AccountOutcome> {
    const account = await this.account(orgId);
    return new Promise<AccountOutcome>((resolve, reject) => {
      account.queue.push({ command, causedBy, resolve, reject, decided });
      if (!account.flushing) {
        account.flushing = true;
        // Let the requests of this turn of the event loop join the batch.
        setImmediate(() => void this.flush(orgId, account));
      }
    });
  }

  /** Balance and reserved amount as this instance knows them (after reading the stream's tail). */
  async balance(orgId: string): Promise<{ balance: bigint; reserved: bigint; available: bigint }> {
    const account = await this.account(orgId);
    await this.catchUp(orgId, account);
    return { balance: balanceOf(account.state), reserved: account.state.reserved, available: availableOf(account.state) };
  }

  /** Writes a snapshot of the account now (after reading the stream's tail). */
  async saveSnapshot(orgId: string): Promise<void> {
    const account = await this.account(orgId);
    await this.catchUp(orgId, account);
    if (account.revision === 'no_stream') return;
    await this.options.snapshots.save(orgId, { state: cloneAccountState(account.state), revision: account.revision });
  }

  /** Forgets cached accounts (tests; an admin after restoring a backup). */
  evictAll(): void {
    this.accounts.clear();
  }

  private account(orgId: string): Promise<Account> {
    let account = this.accounts.get(orgId);
    if (!account) {
      account = this.load(orgId);
      this.accounts.set(orgId, account);
      account.catch(() => this.accounts.delete(orgId));
    }
    return account;
  }

  private async load(orgId: string): Promise<Account> {
    const snapshot = await this.options.snapshots.load(orgId);
    const account: Account = {
      state: snapshot?.state ?? emptyAccountState(),
      revision: snapshot?.revision ?? 'no_stream',
      eventsSinceSnapshot: 0,
      contended: 0,
      quietBatches: 0,
      queue: [],
      flushing: false,
    };
    await this.catchUp(orgId, account);
    return account;
  }

  /**
   * Applies the stream's events after the account's revision, a page at a time (`read`: the store, or the
   * stream under its lock). Returns how many it applied: events this instance did not append.
   */
  private async catchUp(orgId: string, account: Account, read: TailReader = (options) => this.options.store.readStream(accountStreamId(orgId), options)): Promise<number> {
    let applied = 0;
    for (;;) {
      const fromRevision = account.revision === 'no_stream' ? 0n : account.revision + 1n;
      const tail = await read({ fromRevision, maxCount: CATCH_UP_PAGE });
      for (const recorded of tail) {
        // A batch of this instance may have committed, and set the state, while this read was in flight.
        if (account.revision !== 'no_stream' && recorded.revision <= account.revision) continue;
        applyAccountEvent(account.state, decodeAccountEvent(recorded), recorded.metadata.occurredAt);
        account.revision = recorded.revision;
        account.eventsSinceSnapshot++;
        applied++;
      }
      if (tail.length < CATCH_UP_PAGE) return applied;
    }
  }

  private async flush(orgId: string, account: Account): Promise<void> {
    try {
      while (account.queue.length > 0) {
        const batch = account.queue.splice(0, this.maxBatch);
        try {
          await this.runBatch(orgId, account, batch);
        } catch (error) {
          // A store that could not be reached fails the commands queued behind the batch with it: each would
          // otherwise wait for the same store one bound (DATABASE_TIMEOUT_MS) after the other, and a request
          // that came during a stall would be answered 503 only after two bounds or more. Their callers
          // answer 503 or retry, as for the batch itself.
          const failed = isConnectionFailure(error) ? [...batch, ...account.queue.splice(0)] : batch;
          for (const pending of failed) pending.reject(error);
        }
      }
    } finally {
      account.flushing = false;
    }
    this.maybeSnapshot(orgId, account);
  }

  /**
   * Decides the batch against the account and appends its events with the expected revision. After a
   * lost race (another instance appended first) the batch is decided again on the stream's tail; where the
   * store has a stream lock, under it: the other instance's appends then wait, so one busy account cannot
   * make this instance lose again and again (without the lock, with two instances appending to one account
   * flat out, 3 % of the commands failed after 20 lost races in a row). Once a race is lost, the next
   * batches take the lock at once (see CONTENDED_BATCHES). The outcomes are handed out only after the commit.
   */
  private async runBatch(orgId: string, account: Account, batch: Pending[]): Promise<void> {
    const { store } = this.options;
    const streamId = accountStreamId(orgId);
    // Closing a reservation this instance does not hold open decides nothing, and appends nothing that could
    // meet a conflict. That is right for a retried close, but not for a reservation another instance opened
    // and this one has not read yet (an account's owner changed, or a command ran where it was issued):
    // read the stream's tail first, so that "not open" means closed, never unseen.
    if (batch.some(({ command }) => closesUnknownReservation(account.state, command))) await this.catchUp(orgId, account);
    for (let attempt = 1; ; attempt++) {
      try {
        const locked = attempt > 1 || account.contended > 0 ? store.withStreamLock?.bind(store) : undefined;
        const { decided, result } = locked
          ? await locked(streamId, async (stream) => {
              const othersEvents = await this.catchUp(orgId, account, (options) => stream.read(options));
              account.contended = othersEvents > 0 ? CONTENDED_BATCHES : Math.max(0, account.contended - 1);
              return this.decideAndAppend(orgId, account, batch, (events, options) => stream.append(events, options), true);
            })
          : await this.decideAndAppend(orgId, account, batch, (events, options) => this.appendOptimistically(streamId, events, options), account.quietBatches >= this.quietBeforeEarly);
        if (!locked) account.quietBatches++;
        if (result) {
          account.state = decided.working;
          account.revision = result.nextExpectedRevision;
          account.eventsSinceSnapshot += decided.toAppend.length;
        }
        batch.forEach((pending, index) => pending.resolve(decided.outcomes[index]!));
        return;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= this.maxAttempts) throw error;
        account.contended = CONTENDED_BATCHES;
        account.quietBatches = 0;
        // Another instance appended: learn what it did (under the lock, the next attempt reads it itself).
        if (!store.withStreamLock) await this.catchUp(orgId, account);
      }
    }
  }

  /** Decides each command in turn against the evolving state; appends their events, if any, in one append. */
  private async decideAndAppend(
    orgId: string,
    account: Account,
    batch: readonly Pending[],
    append: (events: readonly EventToAppend[], options: { expectedRevision: bigint | 'no_stream' }) => Promise<AppendResult>,
    tellEarly: boolean,
  ): Promise<{ decided: DecidedBatch; result: AppendResult | undefined }> {
    const decided = decideBatch(orgId, account.state, batch, this.options.clock.now());
    const { toAppend, outcomes } = decided;
    if (toAppend.length === 0) return { decided, result: undefined };
    // the callers that asked may act on a decision that will stand while it commits (they gate what they show on `durable`)
    if (tellEarly) {
      for (const [index, pending] of batch.entries()) {
        pending.decided?.(outcomes[index]!);
        pending.decided = undefined;
      }
    }
    return { decided, result: await append(toAppend, { expectedRevision: account.revision }) };
  }

  private maybeSnapshot(orgId: string, account: Account): void {
    if (account.eventsSinceSnapshot < this.snapshotEvery || account.revision === 'no_stream') return;
    account.eventsSinceSnapshot = 0;
    const snapshot = { state: cloneAccountState(account.state), revision: account.revision };
    this.options.snapshots.save(orgId, snapshot).catch((error) => this.options.logger?.warn({ err: error, orgId }, 'account snapshot failed'));
  }
}
