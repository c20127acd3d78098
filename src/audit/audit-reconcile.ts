import { COST_KINDS, formatUsd } from '../billing/money.js';
import { balanceOf } from '../ledger/account-state.js';
import { balanceOfAccount, reservedOfAccount, type LedgerFold } from './audit-fold.js';
import { buildAuditReport, type AuditFilter, type AuditGroup, type Figures } from './audit-report.js';
import type { ReadModelSnapshot } from './audit-read-models.js';

/**
 * Pure comparisons of the log's figures with the read models' (both as of the read models' checkpoint,
 * see audit-read-models.ts) and with the account decider's state. Each difference is one line for the
 * operator: where, which figure, what the log says, what the other side says.
 */
type FigureName = Exclude<keyof Figures, 'byKind'>;
const AMOUNTS: ReadonlySet<FigureName> = new Set(['spend', 'overrunAmount', 'cutOffAmount', 'openAmount']);
const REQUEST_FIGURES: readonly FigureName[] = ['requests', 'spend', 'overruns', 'overrunAmount', 'cutOffs', 'cutOffAmount', 'released', 'expired', 'openCount', 'openAmount'];
const SPEND_DAILY_FIGURES: readonly FigureName[] = ['requests', 'spend'];

const show = (name: string, value: bigint | number) => (typeof value === 'bigint' && AMOUNTS.has(name as FigureName) ? formatUsd(value) : String(value));

/** Every figure of the report (as of the checkpoint) against the `requests` and `spend_daily` read models, and the balances. */
export function reconcileReport(logAtCheckpoint: LedgerFold, readModels: ReadModelSnapshot, filter: AuditFilter): string[] {
  const differences: string[] = [];
  const log = buildAuditReport(logAtCheckpoint, filter);
  for (const [table, fold, figures] of [
    ['requests', readModels.requests, REQUEST_FIGURES],
    ['spend_daily', readModels.spendDaily, SPEND_DAILY_FIGURES],
  ] as const) {
    const other = buildAuditReport(fold, filter);
    const orgIds = new Set([...log.organizations, ...other.organizations].map((organization) => organization.orgId));
    for (const orgId of orgIds) {
      const ours = groupsOf(log.organizations.find((organization) => organization.orgId === orgId)?.groups);
      const theirs = groupsOf(other.organizations.find((organization) => organization.orgId === orgId)?.groups);
      for (const group of new Set([...ours.keys(), ...theirs.keys()])) {
        for (const figure of figures) {
          const a = ours.get(group)?.[figure] ?? 0;
          const b = theirs.get(group)?.[figure] ?? 0;
          if (BigInt(a) !== BigInt(b)) {
            differences.push(`${orgId} ${filter.groupBy} ${group || '(none)'} ${figure}: log ${show(figure, a)}, read model ${table} ${show(figure, b)}`);
          }
        }
        for (const kind of COST_KINDS) {
          const a = ours.get(group)?.byKind[kind] ?? 0n;
          const b = theirs.get(group)?.byKind[kind] ?? 0n;
          if (a !== b) differences.push(`${orgId} ${filter.groupBy} ${group || '(none)'} spend of ${kind}: log ${formatUsd(a)}, read model ${table} ${formatUsd(b)}`);
        }
      }
    }
  }
  differences.push(...compareBalances(logAtCheckpoint, readModels, filter.orgId));
  return differences;
}

/**
 * The balance equation for every organization: credits − settled = balance and the open reservations =
 * reserved, recomputed from the log and held against the read model `balances` (as of its checkpoint)
 * and against the account decider's state at the head of the log; plus any anomaly the replay met.
 */
export function verifyBalances(head: LedgerFold, atCheckpoint: LedgerFold, readModels: ReadModelSnapshot, orgId?: string): string[] {
  const mismatches = [...head.anomalies.filter((anomaly) => orgId === undefined || anomaly.startsWith(`${orgId}:`))];
  for (const account of head.accounts.values()) {
    if (orgId !== undefined && account.orgId !== orgId) continue;
    const balance = balanceOfAccount(account);
    const reserved = reservedOfAccount(account);
    const decided = account.decided;
    if (!decided) throw new Error('verify needs a replay that folds the account state too (replayLedger with accountState)');
    if (balance !== balanceOf(decided)) mismatches.push(`${account.orgId} balance: log ${formatUsd(balance)}, account state ${formatUsd(balanceOf(decided))}`);
    if (reserved !== decided.reserved) mismatches.push(`${account.orgId} reserved: log ${formatUsd(reserved)}, account state ${formatUsd(decided.reserved)}`);
  }
  mismatches.push(...compareBalances(atCheckpoint, readModels, orgId));
  return mismatches;
}

function compareBalances(log: LedgerFold, readModels: ReadModelSnapshot, orgId: string | undefined): string[] {
  const differences: string[] = [];
  const orgIds = new Set([...log.accounts.keys(), ...readModels.balances.keys()]);
  for (const id of [...orgIds].sort()) {
    if (orgId !== undefined && id !== orgId) continue;
    const account = log.accounts.get(id);
    const row = readModels.balances.get(id);
    const ours = account
      ? { credits: account.credits, settled: account.settled, balance: balanceOfAccount(account), reserved: reservedOfAccount(account) }
      : { credits: 0n, settled: 0n, balance: 0n, reserved: 0n };
    const theirs = row ?? { credits: 0n, settled: 0n, balance: 0n, reserved: 0n };
    for (const figure of ['credits', 'settled', 'balance', 'reserved'] as const) {
      if (ours[figure] !== theirs[figure]) differences.push(`${id} ${figure}: log ${formatUsd(ours[figure])}, read model balances ${formatUsd(theirs[figure])}`);
    }
    if (row && row.balance !== row.credits - row.settled) {
      differences.push(`${id} balance: read model balances says ${formatUsd(row.balance)}, but its credits − settled is ${formatUsd(row.credits - row.settled)}`);
    }
  }
  return differences;
}

function groupsOf(groups: readonly AuditGroup[] | undefined): Map<string, AuditGroup> {
  return new Map((groups ?? []).map((group) => [group.group, group]));
}
