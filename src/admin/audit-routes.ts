import { Router } from 'express';
import { z } from 'zod';
import type { AccessCommands } from '../access/access-commands.js';
import type { AuditReconciliationRecord, AuditVerificationRecord } from '../admin-records.js';
import { AUDIT_FORMATS, auditCsv, auditJson, auditTable } from '../audit/audit-format.js';
import { auditFilter, auditQuery } from '../audit/audit-report.js';
import { auditReport, reconcileAudit, verifyLedger, type AuditSources } from '../audit/audit-service.js';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { SignInThrottle } from '../http/sign-in-throttle.js';
import { adminAccess } from './admin-access.js';
import { parseBody } from './admin-schemas.js';

/**
 * The finance audit through the admin API (README, "Finance audit"), computed from the event log by the
 * same code as `npm run audit`:
 * - `GET /admin/v1/audit?organization_id&from&to&group_by&format=json|csv|table`: the report; the CSV is
 *   the contract the web console's download follows byte for byte;
 * - `GET /admin/v1/audit/reconcile?…`: its differences with the read models (as of their checkpoint);
 * - `GET /admin/v1/audit/verify[?organization_id]`: the balance equation of every organization, and every
 *   charge re-priced at its recorded price version.
 * Each replays the log (one account stream when an organization is named and nothing is reconciled).
 */
export interface AuditRouteDependencies extends AuditSources {
  readonly adminToken: string | undefined;
  readonly commands: AccessCommands;
  /** The clock of the sessions as well: the console's cookie is checked against the time that issued it. */
  readonly clock: Clock;
  readonly signIns?: SignInThrottle;
}

const reportQuery = auditQuery.extend({ format: z.enum(AUDIT_FORMATS).optional() });
const verifyQuery = z.strictObject({ organization_id: z.string().min(1).optional() });

export function auditRoutes(deps: AuditRouteDependencies): Router {
  const router = Router();
  router.use('/admin/v1/audit', adminAccess(deps.adminToken, deps.clock, deps.signIns));

  const filterOf = async (query: unknown) => {
    const input = parseBody(reportQuery, query);
    const filter = auditFilter(input, deps.clock.now());
    if (filter.from > filter.to) throw new GatewayError('invalid_request', `from: ${filter.from} is after to ${filter.to}`, { param: 'from' });
    // an unknown organization is a 404, as on the other organization routes, not an empty report
    if (filter.orgId !== undefined) await deps.commands.loadOrganization(filter.orgId);
    return { filter, format: input.format ?? 'json' };
  };

  router.get('/admin/v1/audit', async (req, res) => {
    const { filter, format } = await filterOf(req.query);
    const report = await auditReport(deps, filter);
    if (format === 'json') res.json(auditJson(report));
    else res.set('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'text/plain; charset=utf-8').send(format === 'csv' ? auditCsv(report) : auditTable(report));
  });

  router.get('/admin/v1/audit/reconcile', async (req, res) => {
    const { filter } = await filterOf(req.query);
    const reconciliation = await reconcileAudit(deps, filter);
    res.json({
      object: 'audit_reconciliation',
      checkpoint: reconciliation.checkpoint,
      events_after_checkpoint: reconciliation.eventsAfterCheckpoint,
      differences: reconciliation.differences,
    } satisfies AuditReconciliationRecord);
  });

  router.get('/admin/v1/audit/verify', async (req, res) => {
    const input = parseBody(verifyQuery, req.query);
    if (input.organization_id !== undefined) await deps.commands.loadOrganization(input.organization_id);
    const verification = await verifyLedger(deps, input.organization_id);
    res.json({
      object: 'audit_verification',
      organizations: verification.organizations,
      checkpoint: verification.checkpoint,
      repriced: { charges: verification.repriced.charges, not_versioned: verification.repriced.notVersioned },
      mismatches: verification.mismatches,
    } satisfies AuditVerificationRecord);
  });

  return router;
}
