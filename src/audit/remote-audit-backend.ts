import type { AdminApiClient } from '../admin-client/admin-api-client.js';
import type { AuditReconciliationRecord, AuditVerificationRecord } from '../admin-records.js';
import type { AuditBackend } from './audit-command.js';
import type { AuditFilter } from './audit-report.js';

/** `npm run audit` through a running gateway's admin API (src/admin/audit-routes.ts), computed there by the same code. */
export function remoteAuditBackend(client: AdminApiClient): AuditBackend {
  const query = (filter: AuditFilter, extra: Record<string, string> = {}) => {
    const params = new URLSearchParams({ from: filter.from, to: filter.to, group_by: filter.groupBy, ...extra });
    if (filter.orgId !== undefined) params.set('organization_id', filter.orgId);
    return params.toString();
  };
  return {
    async report(filter, format, reconcile) {
      let text = await client.text('GET', `/audit?${query(filter, { format })}`);
      // the API answers JSON compactly; print it as the local command does
      if (format === 'json') text = `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
      if (!reconcile) return { text };
      const answer = await client.json<AuditReconciliationRecord>('GET', `/audit/reconcile?${query(filter)}`);
      return { text, reconciliation: { checkpoint: answer.checkpoint, eventsAfterCheckpoint: answer.events_after_checkpoint, differences: answer.differences } };
    },
    async verify(orgId) {
      const answer = await client.json<AuditVerificationRecord>('GET', `/audit/verify${orgId === undefined ? '' : `?organization_id=${encodeURIComponent(orgId)}`}`);
      return { organizations: answer.organizations, checkpoint: answer.checkpoint, repriced: { charges: answer.repriced.charges, notVersioned: answer.repriced.not_versioned }, mismatches: answer.mismatches };
    },
  };
}
