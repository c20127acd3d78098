import { sql, type Kysely } from 'kysely';
import { emptyAccountState, openReservation, type AccountState, type OpenReservation, type PeriodCounter } from './account-state.js';
import { spendScopes } from './spend-scopes.js';

/**
 * Snapshots of account states, so that loading an account reads one row and the stream's tail instead
 * of replaying its whole history (DESIGN.md section 6). A snapshot is a cache: losing or deleting one
 * only makes the next load slower; the stream stays the truth.
 */
export interface AccountSnapshot {
  readonly state: AccountState;
  /** The stream revision the state includes. */
  readonly revision: bigint;
}

export type AccountSnapshotTables = {
  account_snapshots: { org_id: string; revision: bigint; state: string; taken_at: Date };
};

export class AccountSnapshotStore {
  private readonly db: Kysely<AccountSnapshotTables>;

  constructor(db: Kysely<object>) {
    this.db = db.withTables<AccountSnapshotTables>();
  }

  async load(orgId: string): Promise<AccountSnapshot | undefined> {
    const row = await this.db.selectFrom('account_snapshots').select(['revision', 'state']).where('org_id', '=', orgId).executeTakeFirst();
    if (!row) return undefined;
    return { revision: BigInt(row.revision), state: deserializeAccountState(typeof row.state === 'string' ? JSON.parse(row.state) : row.state) };
  }

  /** Keeps the newest snapshot; an older one never replaces a newer (two instances may race). */
  async save(orgId: string, snapshot: AccountSnapshot): Promise<void> {
    const state = JSON.stringify(serializeAccountState(snapshot.state));
    await this.db
      .insertInto('account_snapshots')
      .values({ org_id: orgId, revision: snapshot.revision, state, taken_at: new Date() })
      .onConflict((conflict) =>
        conflict
          .column('org_id')
          .doUpdateSet({ revision: snapshot.revision, state, taken_at: new Date() })
          .where(sql<boolean>`account_snapshots.revision < excluded.revision`),
      )
      .execute();
  }
}

interface SerializedAccountState {
  credits: string;
  settled: string;
  /**
   * Without the scopes: they follow from the owner, category and model, and are worked out again on load.
   * The price is absent from snapshots taken before prices were versioned, `heldBy` from those taken before
   * instances were named.
   */
  open: Array<
    Omit<OpenReservation, 'amount' | 'scopes' | 'priceVersion' | 'serviceTier' | 'heldBy'> & { amount: string; priceVersion?: number | null; serviceTier?: string | null; heldBy?: string | null }
  >;
  creditKeys: string[];
  accessRevisions: Array<[string, string]>;
  day: string;
  month: string;
  dayCounters: Array<[string, string, string]>;
  monthCounters: Array<[string, string, string]>;
}

export function serializeAccountState(state: AccountState): SerializedAccountState {
  const counters = (map: Map<string, PeriodCounter>) =>
    [...map].map(([scope, counter]) => [scope, String(counter.settled), String(counter.reserved)] as [string, string, string]);
  return {
    credits: String(state.credits),
    settled: String(state.settled),
    open: [...state.open.values()].map(({ scopes: _scopes, ...reservation }) => ({ ...reservation, amount: String(reservation.amount) })),
    creditKeys: [...state.creditKeys],
    accessRevisions: [...state.accessRevisions].map(([stream, revision]) => [stream, String(revision)]),
    day: state.day,
    month: state.month,
    dayCounters: counters(state.dayCounters),
    monthCounters: counters(state.monthCounters),
  };
}

export function deserializeAccountState(serialized: SerializedAccountState): AccountState {
  const state = emptyAccountState();
  const counters = (rows: Array<[string, string, string]>) =>
    new Map(rows.map(([scope, settled, reserved]) => [scope, { settled: BigInt(settled), reserved: BigInt(reserved) }]));
  state.credits = BigInt(serialized.credits);
  state.settled = BigInt(serialized.settled);
  for (const reservation of serialized.open) {
    openReservation(state, {
      ...reservation,
      amount: BigInt(reservation.amount),
      priceVersion: reservation.priceVersion ?? null,
      serviceTier: reservation.serviceTier ?? null,
      heldBy: reservation.heldBy ?? null,
      scopes: spendScopes(reservation.owner, reservation.category, reservation.model),
    });
  }
  for (const key of serialized.creditKeys) state.creditKeys.add(key);
  for (const [stream, revision] of serialized.accessRevisions) state.accessRevisions.set(stream, BigInt(revision));
  state.day = serialized.day;
  state.month = serialized.month;
  state.dayCounters = counters(serialized.dayCounters);
  state.monthCounters = counters(serialized.monthCounters);
  return state;
}
