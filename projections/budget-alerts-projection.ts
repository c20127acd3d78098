import { ACCESS_STREAM_PREFIXES } from '../src/access/access-events.js';
import { AlertFold, alertEventDefinitions } from './budget-alert-fold.js';
import { ALERT_TABLES, createAlertTables, loadAlertTables, writeAlertFold } from './budget-alert-rows.js';
import { defineProjection } from './projection.js';

/**
 * The budget alerts read model (src/alerts), from the account streams and the access streams: settled
 * spend per organization, key, team and employee per day and month, each scope's limits, the balance, the
 * organizations' alert rules and which alerts are raised. It decides the budget alerts from the log, so a
 * crash never loses one: an alert's webhook delivery is written in the transaction of the checkpoint that
 * passes the charge that raised it, and the dispatcher sends it from there.
 *
 * A rebuild replays from the start and computes the same state, but never queues a delivery again: a
 * delivery is queued only by the first decision of its event (`budget_alert_decisions`), and the table of
 * deliveries is not the generation's (migration 0104); the delivery's id, derived from the event and the
 * alert, is the same on every replay besides. Batches are folded in memory (budget-alert-fold.ts) and
 * written with one statement per table (budget-alert-rows.ts).
 */
export const budgetAlertsProjection = defineProjection({
  name: 'budget_alerts',
  version: 1,
  handles: alertEventDefinitions,
  streams: ['account-', ...ACCESS_STREAM_PREFIXES],
  tables: ALERT_TABLES,
  setup: createAlertTables,
  async applyBatch(trx, events) {
    const tables = await loadAlertTables(trx, events);
    const fold = new AlertFold(tables);
    for (const event of events) fold.apply(event);
    await writeAlertFold(trx, fold, tables);
  },
});
