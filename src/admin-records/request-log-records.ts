/**
 * The request log's records (`GET /requests`, `GET /organizations/{org}/requests`, `GET /requests/{id}`),
 * part of the admin API's records: src/admin-records.ts re-exports them, and the same rules hold (types
 * only, importing nothing).
 */

/**
 * A request's usage as the log recorded it, by kind: the counts the provider reported (zeros included) or
 * the gateway counted, and no others. `counted`: the provider reported none and the gateway counted what
 * it received.
 */
export interface UsageRecord {
  input_tokens?: number;
  cached_input_tokens?: number;
  cache_write_tokens?: number;
  output_tokens?: number;
  reasoning_tokens?: number;
  images?: number;
  audio_seconds?: number;
  video_seconds?: number;
  counted?: boolean;
}

/** How a request's reservation stands: open while it runs, then how it was closed. */
export type RequestStatus = 'open' | 'settled' | 'cut_off' | 'released' | 'expired';

/** Why a reservation was released without a charge. */
export type ReleaseReasonRecord = 'provider_error' | 'client_error' | 'cancelled' | 'video_failed';

/**
 * One request of the request log (`GET /requests`, `GET /organizations/{org}/requests`): the reservation a
 * model request made and how it ended. Never a message's contents: the log holds none.
 */
export interface RequestLogRecord {
  id: string;
  object: 'request';
  organization_id: string;
  organization_name: string | null;
  key_id: string;
  key_name: string | null;
  employee_id: string | null;
  team_id: string | null;
  space_id: string | null;
  /** The endpoint's short name (`chat`, `messages`, …); null for requests logged before it was recorded. */
  endpoint: string | null;
  model: string;
  type: string;
  status: RequestStatus;
  release_reason: ReleaseReasonRecord | null;
  /** Whether the request ended in an error its client saw (the log's `status=error`). */
  error: boolean;
  reserved_usd: string;
  /** What was charged: null while open, `0.00` when released or expired. */
  cost_usd: string | null;
  /** The part of the cost above the reserve, for a settled request. */
  overrun_usd: string | null;
  usage: UsageRecord | null;
  reserved_at: string;
  closed_at: string | null;
  /** From the reserve to the close: the time the provider took, and the gateway's few milliseconds. */
  duration_ms: number | null;
}

/** One event of a request's audit trail, as the event log holds it, its amounts in USD. */
export interface RequestEventRecord {
  type: 'FundsReserved' | 'ReservationSettled' | 'ReservationReleased' | 'ReservationCutOff' | 'ReservationExpired';
  stream: string;
  revision: string;
  schema_version: number;
  occurred_at: string;
  recorded_at: string;
  caused_by: string;
  /** FundsReserved: the amount reserved, and when the sweeper may expire it. */
  amount_usd?: string;
  deadline?: string;
  /** ReservationSettled, ReservationCutOff: the charge and the usage it was computed from. */
  cost_usd?: string;
  usage?: UsageRecord;
  /** ReservationSettled: the part of the cost above the reserve. */
  overrun_usd?: string;
  /** ReservationReleased. */
  reason?: ReleaseReasonRecord;
}

/** `GET /requests/{id}`: the request and its events from the log, in the order they were written. */
export interface RequestDetailRecord extends RequestLogRecord {
  events: RequestEventRecord[];
}
