/**
 * The records the admin API answers with (docs/operator-guide.md, "Admin API"), as they travel: snake_case
 * fields, money as USD decimal strings, times as ISO strings. One declaration for every side of the wire:
 * the gateway renders them (src/admin/record-renderers.ts and the routes), the CLIs read them through the
 * admin client, and the browser console imports them with `import type`. Types only, importing nothing but
 * their own parts, which is what lets the console import them (.dependency-cruiser.cjs): a field renamed on one side fails
 * the type check of the other. The records of the larger answers are in files of their own under
 * src/admin-records/, re-exported here, so that every side still imports this one module.
 */

export type * from './admin-records/model-records.js';
export type * from './admin-records/overview-records.js';
export type * from './admin-records/request-log-records.js';
export type * from './admin-records/spend-control-records.js';

export interface LimitPairRecord {
  daily_usd: string | null;
  monthly_usd: string | null;
}

/** A key's limits: overall, per model category and per model. */
export interface KeyLimitsRecord extends LimitPairRecord {
  by_type: Record<string, LimitPairRecord>;
  by_model: Record<string, LimitPairRecord>;
}

export interface OrganizationRecord {
  id: string;
  object: 'organization';
  name: string;
  status: 'active' | 'blocked';
  pii_masking: boolean;
  balance_usd: string;
  reserved_usd: string;
  spend_limits: LimitPairRecord;
}

/** An organization in `GET /organizations`, read from the read models: also when it was created. */
export interface ListedOrganizationRecord extends OrganizationRecord {
  created_at: string;
}

export interface KeyRecord {
  id: string;
  object: 'key';
  organization_id: string;
  name: string | null;
  employee_id: string | null;
  secret_hint: string;
  /** The models the key may call; null: every model of the catalog. */
  models: string[] | null;
  limits: KeyLimitsRecord;
  rpm: number;
  tpm: number;
  expires_at: string | null;
  /** The most requests of the key open at once; null: no cap. */
  max_concurrent_requests: number | null;
  /** The cost cap of a request that sends no lower `X-Max-Cost-USD`; null: none. */
  max_cost_per_request_usd: string | null;
  status: 'valid' | 'revoked' | 'expired';
}

/** The answer to issuing a key: the only time its secret is shown. */
export interface IssuedKeyRecord extends KeyRecord {
  key: string;
}

export interface TeamRecord {
  id: string;
  object: 'team';
  organization_id: string;
  name: string;
  spend_limits: LimitPairRecord;
}

export interface EmployeeRecord {
  id: string;
  object: 'employee';
  organization_id: string;
  name: string;
  team_id: string | null;
  spend_limits: LimitPairRecord;
}

export interface SpaceRecord {
  id: string;
  object: 'space';
  organization_id: string;
  name: string;
}

/** An open reservation; `id` is the request id, `expires_at` when the sweeper may expire it. */
export interface ReservationRecord {
  id: string;
  object: 'reservation';
  organization_id: string;
  key_id: string;
  employee_id: string | null;
  team_id: string | null;
  space_id: string | null;
  model: string;
  type: string;
  reserved_usd: string;
  reserved_at: string;
  expires_at: string;
}

export interface ListRecord<T> {
  object: 'list';
  data: T[];
}

/** A page of a paginated list: the next page is asked for with `after` = `last_id`. */
export interface PageRecord<T> extends ListRecord<T> {
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/**
 * What spend is grouped by; `day` and `price_version` (`<model>@v<n>`) only in the spend report and the
 * audit, the daily spend is per day already.
 */
export type SpendGroup = 'key' | 'model' | 'space' | 'day' | 'type' | 'price_version';
export type DailySpendGroup = Exclude<SpendGroup, 'day' | 'price_version'>;

/**
 * Spend split by kind, USD strings: input (uncached, text), cached input (cache reads), cache writes,
 * output (text), reasoning, audio (in and out) and media (images, audio minutes, video seconds). The PII
 * masking fee is the type `pii`, no kind; a charge recorded before charges were split adds to no kind.
 */
export interface SpendByKindRecord {
  input_usd: string;
  cached_input_usd: string;
  cache_write_usd: string;
  output_usd: string;
  reasoning_usd: string;
  audio_usd: string;
  media_usd: string;
}

/** One group's spend, under the group's name as its field (`{"model": "openai/gpt-4o-mini", …}`); null: none (no space). */
export type SpendFiguresRecord<Group extends string> = Partial<Record<Group, string | null>> & { cost_usd: string; requests: number };

export interface SpendReportRecord {
  object: 'spend_report';
  organization_id: string;
  from: string;
  to: string;
  group_by: SpendGroup;
  data: Array<SpendFiguresRecord<SpendGroup> & { cost_by_kind: SpendByKindRecord }>;
  total_usd: string;
  total_by_kind: SpendByKindRecord;
}

export interface DailySpendRecord {
  object: 'spend_daily';
  organization_id: string;
  from: string;
  to: string;
  group_by: DailySpendGroup;
  data: Array<{ day: string } & SpendFiguresRecord<DailySpendGroup>>;
  total_usd: string;
}

/** A generation of a read model; null where it never ran (or is no longer in the registry). */
export interface ProjectionStatusRecord {
  projection: string;
  generation: number | null;
  status: 'building' | 'active' | 'retired' | 'not started';
  built_by_version: number | null;
  code_version: number | null;
  position: string | null;
  events_processed: number;
  updated_at: string | null;
  lag: { events_behind: number; events_behind_capped: boolean; ms_behind: number } | null;
}

export interface ProjectionRebuildRecord {
  object: 'projection_rebuild';
  projection: string;
  generation: number;
  events_processed: number;
  elapsed_ms: number;
  /** The generations the rebuild dropped. */
  retired: number[];
}

interface CountAndAmount {
  count: number;
  amount_usd: string;
}

export interface AuditFiguresRecord {
  requests: number;
  spend_usd: string;
  spend_by_kind: SpendByKindRecord;
  open_reservations: CountAndAmount;
  overruns: CountAndAmount;
  cut_offs: CountAndAmount;
  released: number;
  expired: number;
}

/** The finance audit's report in JSON (`GET /audit`, `npm run audit -- --format json`). */
export interface AuditReportRecord {
  object: 'audit_report';
  organization_id: string | null;
  from: string;
  to: string;
  group_by: SpendGroup;
  data: Array<
    { organization_id: string; credits_usd: string } & AuditFiguresRecord & { groups: Array<Partial<Record<SpendGroup, string | null>> & AuditFiguresRecord> }
  >;
}

export interface AuditReconciliationRecord {
  object: 'audit_reconciliation';
  checkpoint: string | null;
  events_after_checkpoint: number;
  differences: string[];
}

export interface AuditVerificationRecord {
  object: 'audit_verification';
  organizations: number;
  checkpoint: string | null;
  /** Charges priced again at their recorded price version, and those recorded before prices were versioned. */
  repriced: { charges: number; not_versioned: number };
  mismatches: string[];
}

/** `GET /console/session`: the console's session, with the CSRF token its changes carry. */
export interface ConsoleSessionRecord {
  object: 'console_session';
  expires_at: string;
  csrf_token: string;
}

/** A video job as the console lists it (`GET /admin/v1/organizations/{org}/videos`). */
export interface VideoJobRecord {
  id: string;
  object: 'video_job';
  organization_id: string;
  key_id: string;
  model: string;
  status: 'queued' | 'in_progress' | 'completed' | 'failed';
  progress: number;
  seconds: number;
  size: string;
  created_at: string;
  finished_at: string | null;
  error: { code: string; message: string } | null;
  /** What the job was charged once it was billed (0 for a failed job); null while it runs. */
  cost_usd: string | null;
}
