import type { SpendType } from '../billing/categories.js';
import { COST_KINDS, type CostKind } from '../billing/money.js';
import type { AccountEvent, CostByKindStrings } from '../ledger/account-events.js';
import { applyAccountEvent, emptyAccountState, type AccountState } from '../ledger/account-state.js';
import { evolvePrices, initialPriceState, type PriceState } from '../prices/price-decider.js';
import type { PriceEvent } from '../prices/price-events.js';
import { repriceCharge, type ChargeToReprice } from './audit-repricing.js';

/**
 * The finance audit's replay: a pure fold of decoded account events into the figures finance asks for.
 * It defines every figure the way the ledger read models do (projections/ledger-projection.ts), so that
 * `--reconcile` can hold one against the other:
 * - a request's spend (the cost of a settlement or a cut-off; released and expired requests cost 0) and
 *   its request count belong to the UTC day its money was reserved, and count once the request closes;
 * - an organization's balance is credits − settled cost; its reserved amount is the sum of its open
 *   reservations.
 * - a masked request's PII masking fee is spend of the type `pii` (on the request's key, space and model)
 *   and not of its model's type; the request itself is counted once, under its model's type, and so are its
 *   overrun and, when cut off, its whole charge (`cutOffAmount`).
 * Figures are kept per spend row (organization, reserve day, key, space, type, model), the finest grain
 * any grouping of the report needs, so a replay of millions of events keeps thousands of rows, not
 * millions. Closing a reservation that is not open (twice, or never reserved) changes no figure, as in
 * the read models, and is recorded as an anomaly: the account decider never writes one.
 *
 * - a request's spend is also split by kind (input, cached input, cache writes, output, reasoning, audio,
 *   media) as its settle recorded it, and kept per price version (the model's version it was charged at).
 *
 * Asked to (`verify` does), the fold also runs the account decider's `applyAccountEvent` over the same
 * events: that is the state a reserve decision sees ("the in-log state"), and `verify` holds the two
 * against each other. It keeps spend counters per scope, which makes a replay about twice as slow, so the
 * report leaves it out. `verify` also re-prices every charge from its recorded usage at its recorded price
 * version, folded from the price events of the same log (audit-repricing.ts).
 */
export interface SpendRowKey {
  readonly orgId: string;
  /** UTC day (YYYY-MM-DD) the request's money was reserved. */
  readonly day: string;
  readonly keyId: string;
  readonly spaceId: string | null;
  readonly category: SpendType;
  readonly model: string;
  /** The model's price version the request was reserved and charged at; null before prices were versioned. */
  readonly priceVersion: number | null;
}

/** Spend by kind (without the masking fee, which is spend of the type `pii`). */
export type SpendByKind = Record<CostKind, bigint>;

export interface SpendRow extends SpendRowKey {
  /** Closed requests (settled, cut off, released or expired). */
  requests: number;
  /** Cost of the settled and cut-off requests, nanodollars. */
  spend: bigint;
  settled: number;
  /** Settled requests whose cost exceeded their reserve, and the cost above the reserve. */
  overruns: number;
  overrunAmount: bigint;
  cutOffs: number;
  cutOffAmount: bigint;
  released: number;
  expired: number;
  /** `spend` split by kind, as the settle and cut-off events recorded it (none for charges not split). */
  readonly byKind: SpendByKind;
}

export interface OpenRequest extends SpendRowKey {
  readonly reservationId: string;
  readonly amount: bigint;
  /** The service tier it was priced at; null for the standard rates. */
  readonly serviceTier: string | null;
}

/** What `verify`'s re-pricing found: the charges it priced again, those it could not (recorded before price versions), and each that disagreed. */
export interface RepricingResult {
  checked: number;
  notVersioned: number;
  readonly mispriced: string[];
}

export interface AuditedAccount {
  readonly orgId: string;
  credits: bigint;
  /** Credits by the UTC day they were added. */
  readonly creditsByDay: Map<string, bigint>;
  settled: bigint;
  readonly open: Map<string, OpenRequest>;
  /** The account decider's own state, folded from the same events (only when the fold was asked to). */
  readonly decided: AccountState | undefined;
}

export interface LedgerFold {
  readonly accounts: Map<string, AuditedAccount>;
  readonly rows: Map<string, SpendRow>;
  /** `<orgId> <reservationId>` of every reservation closed so far (to tell a second closing from a first). */
  readonly closed: Set<string>;
  readonly anomalies: string[];
  events: number;
  readonly withAccountState: boolean;
  /** Every model's price versions, as the log's price events recorded them so far. */
  prices: PriceState;
  /** Present when the fold re-prices each charge (verify). */
  readonly repricing: RepricingResult | undefined;
}

export function emptyLedgerFold(options: { accountState?: boolean; reprice?: boolean } = {}): LedgerFold {
  return {
    accounts: new Map(),
    rows: new Map(),
    closed: new Set(),
    anomalies: [],
    events: 0,
    withAccountState: options.accountState ?? false,
    prices: initialPriceState,
    repricing: options.reprice ? { checked: 0, notVersioned: 0, mispriced: [] } : undefined,
  };
}

/** Applies one event of the price stream (the versions a charge is re-priced at). */
export function foldPriceEvent(fold: LedgerFold, event: PriceEvent): LedgerFold {
  fold.prices = evolvePrices(fold.prices, event);
  return fold;
}

export const zeroSpendByKind = (): SpendByKind => Object.fromEntries(COST_KINDS.map((kind) => [kind, 0n])) as SpendByKind;

/** Adds a charge's recorded split to spend by kind. */
export function addSpendByKind(target: SpendByKind, recorded: CostByKindStrings | SpendByKind): void {
  for (const kind of COST_KINDS) {
    const amount = recorded[kind];
    if (amount !== undefined) target[kind] += BigInt(amount);
  }
}

export const ACCOUNT_STREAM_PREFIX = 'account-';

/** Applies one event of the stream `account-<orgId>`, written at `occurredAt`; changes the fold in place. */
export function foldAccountEvent(fold: LedgerFold, orgId: string, event: AccountEvent, occurredAt: string): LedgerFold {
  fold.events++;
  const account = accountOf(fold, orgId);
  if (account.decided) applyAccountEvent(account.decided, event, occurredAt);
  switch (event.type) {
    case 'CreditsAdded': {
      const amount = BigInt(event.data.amount);
      const day = utcDay(occurredAt);
      account.credits += amount;
      account.creditsByDay.set(day, (account.creditsByDay.get(day) ?? 0n) + amount);
      return fold;
    }
    case 'FundsReserved': {
      const { reservationId, keyId, spaceId, category, model, amount, priceVersion, serviceTier } = event.data;
      if (account.open.has(reservationId) || fold.closed.has(`${orgId} ${reservationId}`)) {
        fold.anomalies.push(`${orgId}: ${reservationId} reserved twice`);
        return fold;
      }
      account.open.set(reservationId, { reservationId, orgId, day: utcDay(occurredAt), keyId, spaceId, category, model, priceVersion, serviceTier, amount: BigInt(amount) });
      return fold;
    }
    case 'ReservationSettled':
    case 'ReservationCutOff':
    case 'ReservationReleased':
    case 'ReservationExpired': {
      const id = event.data.reservationId;
      const request = account.open.get(id);
      if (!request) {
        fold.anomalies.push(`${orgId}: ${id} closed (${event.type}) while not open`);
        return fold;
      }
      account.open.delete(id);
      fold.closed.add(`${orgId} ${id}`);
      const row = rowOf(fold, request);
      row.requests++;
      if (event.type === 'ReservationSettled' || event.type === 'ReservationCutOff') {
        addSpendByKind(row.byKind, event.data.costByKind);
        if (fold.repricing) repriceCharge(fold.repricing, fold.prices, orgId, request.model, event.data as ChargeToReprice);
      }
      if (event.type === 'ReservationSettled') {
        const cost = BigInt(event.data.cost);
        const overrun = BigInt(event.data.overrun);
        account.settled += cost;
        row.spend += cost - chargePiiFee(fold, request, event.data.piiMaskingFee);
        row.settled++;
        if (overrun > 0n) {
          row.overruns++;
          row.overrunAmount += overrun;
        }
      } else if (event.type === 'ReservationCutOff') {
        const cost = BigInt(event.data.cost);
        account.settled += cost;
        row.spend += cost - chargePiiFee(fold, request, event.data.piiMaskingFee);
        row.cutOffs++;
        row.cutOffAmount += cost;
      } else if (event.type === 'ReservationReleased') {
        row.released++;
      } else {
        row.expired++;
      }
      return fold;
    }
    case 'AccessRulesChanged':
      return fold;
  }
}

/** Books a request's PII masking fee as spend of the type `pii`; returns it, the part of the cost it took. */
function chargePiiFee(fold: LedgerFold, request: SpendRowKey, fee: string): bigint {
  const amount = BigInt(fee);
  if (amount > 0n) rowOf(fold, { ...request, category: 'pii' }).spend += amount;
  return amount;
}

export const balanceOfAccount = (account: AuditedAccount) => account.credits - account.settled;
export const reservedOfAccount = (account: AuditedAccount) => [...account.open.values()].reduce((sum, request) => sum + request.amount, 0n);

/** A copy that later events do not change (the figures as of one position of the log). */
export function cloneLedgerFold(fold: LedgerFold): LedgerFold {
  const accounts = new Map<string, AuditedAccount>();
  for (const [orgId, account] of fold.accounts) {
    accounts.set(orgId, {
      orgId,
      credits: account.credits,
      creditsByDay: new Map(account.creditsByDay),
      settled: account.settled,
      open: new Map(account.open),
      // the decider's state is only compared at the head of the log
      decided: account.decided,
    });
  }
  const rows = new Map<string, SpendRow>();
  for (const [key, row] of fold.rows) rows.set(key, { ...row, byKind: { ...row.byKind } });
  // the re-pricing is only reported at the head of the log
  return { ...fold, accounts, rows, closed: new Set(fold.closed), anomalies: [...fold.anomalies] };
}

export function utcDay(isoTime: string): string {
  return new Date(isoTime).toISOString().slice(0, 10);
}

function accountOf(fold: LedgerFold, orgId: string): AuditedAccount {
  let account = fold.accounts.get(orgId);
  if (!account) {
    account = { orgId, credits: 0n, creditsByDay: new Map(), settled: 0n, open: new Map(), decided: fold.withAccountState ? emptyAccountState() : undefined };
    fold.accounts.set(orgId, account);
  }
  return account;
}

/** A spend row with nothing counted yet, for its key (the log's fold and the read models' fold alike). */
export function emptySpendRow(key: SpendRowKey): SpendRow {
  const { orgId, day, keyId, spaceId, category, model, priceVersion } = key;
  return { orgId, day, keyId, spaceId, category, model, priceVersion, requests: 0, spend: 0n, settled: 0, overruns: 0, overrunAmount: 0n, cutOffs: 0, cutOffAmount: 0n, released: 0, expired: 0, byKind: zeroSpendByKind() };
}

function rowOf(fold: LedgerFold, key: SpendRowKey): SpendRow {
  const id = `${key.orgId}\u0000${key.day}\u0000${key.keyId}\u0000${key.spaceId ?? ''}\u0000${key.category}\u0000${key.model}\u0000${key.priceVersion ?? ''}`;
  let row = fold.rows.get(id);
  if (!row) {
    row = emptySpendRow(key);
    fold.rows.set(id, row);
  }
  return row;
}
