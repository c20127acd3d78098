import type { EventStore, GlobalPosition, RecordedEvent } from '../eventstore/event-store.js';
import { decodeAccountEvent } from '../ledger/account-event-catalogue.js';
import { accountStreamId } from '../ledger/account-events.js';
import { decodePriceEvent } from '../prices/price-event-catalogue.js';
import { PRICES_STREAM_ID, PRICES_STREAM_PREFIX } from '../prices/price-events.js';
import { ACCOUNT_STREAM_PREFIX, cloneLedgerFold, emptyLedgerFold, foldAccountEvent, foldPriceEvent, type LedgerFold } from './audit-fold.js';

/**
 * Reads the event log through the EventStore port (either adapter) and folds its account events. The
 * audit never reads a read model to compute a figure: the log is the source of truth.
 */
export interface ReplayOptions {
  /** Only this organization's account stream (read alone, which is much faster on a long log). */
  readonly orgId?: string;
  /**
   * Also keep the figures as they stood right after the event at this position (a projection's
   * checkpoint; null: before the first event). Needs the whole log, so it ignores `orgId` while reading.
   */
  readonly snapshotAt?: string | null;
  readonly pageSize?: number;
  /** Also fold the account decider's state (for verify; see audit-fold.ts). */
  readonly accountState?: boolean;
  /** Also price every charge again at its recorded price version (for verify; see audit-repricing.ts). */
  readonly reprice?: boolean;
}

export interface Replay {
  /** The figures at the end of the log as read. */
  readonly head: LedgerFold;
  /** The figures at `snapshotAt`; undefined when it was not asked for or never met in the log. */
  readonly atSnapshot: LedgerFold | undefined;
  /** How many events of every stream were read. */
  readonly eventsRead: number;
}

export async function replayLedger(store: EventStore, options: ReplayOptions = {}): Promise<Replay> {
  const pageSize = options.pageSize ?? 5_000;
  const fold = emptyLedgerFold({ accountState: options.accountState ?? false, reprice: options.reprice ?? false });
  const wantSnapshot = options.snapshotAt !== undefined;
  let atSnapshot = wantSnapshot && options.snapshotAt === null ? cloneLedgerFold(fold) : undefined;
  let eventsRead = 0;
  const apply = (recorded: RecordedEvent) => {
    eventsRead++;
    if (recorded.streamId.startsWith(ACCOUNT_STREAM_PREFIX)) {
      const orgId = recorded.streamId.slice(ACCOUNT_STREAM_PREFIX.length);
      if (options.orgId === undefined || orgId === options.orgId) foldAccountEvent(fold, orgId, decodeAccountEvent(recorded), recorded.metadata.occurredAt);
    } else if (recorded.streamId.startsWith(PRICES_STREAM_PREFIX)) {
      foldPriceEvent(fold, decodePriceEvent(recorded));
    }
    if (wantSnapshot && !atSnapshot && recorded.position === options.snapshotAt) atSnapshot = cloneLedgerFold(fold);
  };

  if (options.orgId !== undefined && !wantSnapshot) {
    // the price versions first: every charge of the account was priced at one recorded before it
    for (const recorded of await store.readStream(PRICES_STREAM_ID)) foldPriceEvent(fold, decodePriceEvent(recorded));
    const stream = accountStreamId(options.orgId);
    let fromRevision: bigint | 'start' = 'start';
    for (;;) {
      const page = await store.readStream(stream, { fromRevision, maxCount: pageSize });
      for (const recorded of page) apply(recorded);
      if (page.length < pageSize) break;
      fromRevision = page[page.length - 1]!.revision + 1n;
    }
    return { head: fold, atSnapshot, eventsRead };
  }

  let from: GlobalPosition | 'start' = 'start';
  for (;;) {
    const page = await store.readAll({ from, maxCount: pageSize });
    for (const recorded of page) apply(recorded);
    if (page.length < pageSize) break;
    from = page[page.length - 1]!.position;
  }
  return { head: fold, atSnapshot, eventsRead };
}
