import type { Kysely } from 'kysely';
import type { EventStore } from '../eventstore/event-store.js';
import { readLedgerReadModels } from './audit-read-models.js';
import { reconcileReport, verifyBalances } from './audit-reconcile.js';
import { buildAuditReport, type AuditFilter, type AuditReport } from './audit-report.js';
import { replayLedger } from './audit-replay.js';

/**
 * The audit's three operations on a store and a read-model database: what the CLI runs on the database
 * and what the admin API runs inside the gateway (so both compute the same figures with the same code).
 */
export interface AuditSources {
  readonly store: EventStore;
  readonly readModels: Kysely<object>;
}

export async function auditReport(sources: AuditSources, filter: AuditFilter): Promise<AuditReport> {
  const replay = await replayLedger(sources.store, filter.orgId === undefined ? {} : { orgId: filter.orgId });
  return buildAuditReport(replay.head, filter);
}

export interface Reconciliation {
  readonly report: AuditReport;
  /** The read models' checkpoint the comparison was made at. */
  readonly checkpoint: string | null;
  /** Events of the log after it (not in the read models yet, and not compared). */
  readonly eventsAfterCheckpoint: number;
  readonly differences: string[];
}

/**
 * The report from the whole log, and its figures as of the ledger read model's checkpoint compared with
 * the read models. The read models lag the log by design (they follow it in the background); comparing
 * at their checkpoint rather than at the head makes the comparison exact whatever the lag, even when no
 * projection runs at all.
 */
export async function reconcileAudit(sources: AuditSources, filter: AuditFilter): Promise<Reconciliation> {
  const readModels = await readLedgerReadModels(sources.readModels, filter);
  const replay = await replayLedger(sources.store, { ...(filter.orgId === undefined ? {} : { orgId: filter.orgId }), snapshotAt: readModels.checkpoint });
  const report = buildAuditReport(replay.head, filter);
  if (!replay.atSnapshot) return { report, checkpoint: readModels.checkpoint, eventsAfterCheckpoint: 0, differences: [notInLog(readModels.checkpoint)] };
  return {
    report,
    checkpoint: readModels.checkpoint,
    eventsAfterCheckpoint: replay.head.events - replay.atSnapshot.events,
    differences: reconcileReport(replay.atSnapshot, readModels, filter),
  };
}

export interface Verification {
  /** Organizations with an account stream (or a balance row). */
  readonly organizations: number;
  readonly checkpoint: string | null;
  /** Charges priced again at their recorded price version, and those recorded before prices were versioned (not re-priced). */
  readonly repriced: { readonly charges: number; readonly notVersioned: number };
  readonly mismatches: string[];
}

export async function verifyLedger(sources: AuditSources, orgId?: string): Promise<Verification> {
  const readModels = await readLedgerReadModels(sources.readModels, { orgId });
  const replay = await replayLedger(sources.store, { ...(orgId === undefined ? {} : { orgId }), snapshotAt: readModels.checkpoint, accountState: true, reprice: true });
  const organizations = new Set([...replay.head.accounts.keys(), ...readModels.balances.keys()]).size;
  const repricing = replay.head.repricing!;
  const repriced = { charges: repricing.checked, notVersioned: repricing.notVersioned };
  if (!replay.atSnapshot) return { organizations, checkpoint: readModels.checkpoint, repriced, mismatches: [notInLog(readModels.checkpoint)] };
  const mismatches = [...verifyBalances(replay.head, replay.atSnapshot, readModels, orgId), ...repricing.mispriced];
  return { organizations, checkpoint: readModels.checkpoint, repriced, mismatches };
}

function notInLog(checkpoint: string | null): string {
  return `the ledger read model's checkpoint ${checkpoint} is not a position of this event log (a read model of another log?)`;
}
