import type { ReleaseReasonRecord, RequestEventRecord, RequestLogRecord, RequestStatus, UsageRecord } from '../admin-records.js';
import { formatUsd } from '../billing/money.js';
import type { EventStore } from '../eventstore/event-store.js';
import { accountEventCatalogue } from '../ledger/account-event-catalogue.js';
import type { RequestLogRow } from './request-log-query.js';

/** The request log's records from its rows, and a request's audit trail from the event log. */
const usd = (nanos: string) => formatUsd(BigInt(nanos));

/** The stored usage's names (camelCase, the event's shape) as the API spells them. */
const USAGE_FIELDS = {
  inputTokens: 'input_tokens',
  cachedInputTokens: 'cached_input_tokens',
  cacheWriteTokens: 'cache_write_tokens',
  outputTokens: 'output_tokens',
  reasoningTokens: 'reasoning_tokens',
  images: 'images',
  audioSeconds: 'audio_seconds',
  videoSeconds: 'video_seconds',
  counted: 'counted',
} as const satisfies Record<string, keyof UsageRecord>;

export function renderUsage(stored: Readonly<Record<string, number | boolean | undefined>>): UsageRecord {
  const usage: Record<string, number | boolean> = {};
  for (const [field, name] of Object.entries(USAGE_FIELDS)) {
    const value = stored[field];
    if (value !== undefined) usage[name] = value;
  }
  return usage as UsageRecord;
}

export function renderRequest(row: RequestLogRow): RequestLogRecord {
  return {
    id: row.request_id,
    object: 'request',
    organization_id: row.org_id,
    organization_name: row.organization_name,
    key_id: row.key_id,
    key_name: row.key_name,
    employee_id: row.employee_id,
    team_id: row.team_id,
    space_id: row.space_id,
    endpoint: row.endpoint,
    model: row.model,
    type: row.category,
    status: row.status as RequestStatus,
    release_reason: row.release_reason as ReleaseReasonRecord | null,
    error: row.error,
    reserved_usd: usd(row.reserved),
    cost_usd: row.cost === null ? null : usd(row.cost),
    overrun_usd: row.overrun === null ? null : usd(row.overrun),
    usage: row.usage === null ? null : renderUsage(row.usage),
    reserved_at: row.reserved_at,
    closed_at: row.closed_at,
    duration_ms: row.closed_at === null ? null : Date.parse(row.closed_at) - Date.parse(row.reserved_at),
  };
}

/**
 * The events that reserved and closed the request, read from its account stream at the revisions the
 * read model recorded: two point reads, however long the stream (a busy organization writes thousands of
 * events a minute). A request the read model has not seen close yet shows its reserve alone.
 */
export async function requestEvents(store: EventStore, row: RequestLogRow): Promise<RequestEventRecord[]> {
  const stream = `account-${row.org_id}`;
  const revisions = [row.reserved_revision, row.closed_revision].filter((revision): revision is string => revision !== null);
  const events: RequestEventRecord[] = [];
  for (const revision of revisions) {
    const [recorded] = await store.readStream(stream, { fromRevision: BigInt(revision), maxCount: 1 });
    if (!recorded || recorded.revision !== BigInt(revision)) continue;
    const event = accountEventCatalogue.decode(recorded);
    // The revisions come from the read model; the event must still say it is this request's.
    if (event.type === 'CreditsAdded' || event.type === 'AccessRulesChanged' || event.data.reservationId !== row.request_id) continue;
    const envelope = {
      stream,
      revision,
      schema_version: recorded.metadata.schemaVersion,
      occurred_at: recorded.metadata.occurredAt,
      recorded_at: recorded.recordedAt.toISOString(),
      caused_by: recorded.metadata.causedBy,
    };
    switch (event.type) {
      case 'FundsReserved':
        events.push({ type: event.type, ...envelope, amount_usd: usd(event.data.amount), deadline: event.data.deadline });
        break;
      case 'ReservationSettled':
        events.push({ type: event.type, ...envelope, cost_usd: usd(event.data.cost), overrun_usd: usd(event.data.overrun), usage: renderUsage(event.data.usage) });
        break;
      case 'ReservationCutOff':
        events.push({ type: event.type, ...envelope, cost_usd: usd(event.data.cost), usage: renderUsage(event.data.usage) });
        break;
      case 'ReservationReleased':
        events.push({ type: event.type, ...envelope, reason: event.data.reason });
        break;
      case 'ReservationExpired':
        events.push({ type: event.type, ...envelope });
        break;
    }
  }
  return events;
}
