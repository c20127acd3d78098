import { z } from 'zod';
import { DEFAULT_RPM, DEFAULT_TPM, type KeyLimits, type KeySettings, type LimitPair } from '../access/access-events.js';
import { MODEL_CATEGORIES } from '../billing/categories.js';
import { GatewayError } from '../errors/gateway-error.js';
import { isUsdAmount, parseUsd } from '../billing/money.js';

/**
 * Admin request bodies. Money is a USD decimal string ("12.50"); a JSON number is refused, because
 * binary floating point cannot carry every cent. Unknown fields are refused so typos do not pass silently.
 */
const usd = z
  .string({ error: 'must be a USD decimal string such as "10.00"' })
  .refine(isUsdAmount, 'must be a USD decimal string such as "10.00" (at most 9 decimals)');

const limitPair = z.strictObject({ daily_usd: usd.nullable().optional(), monthly_usd: usd.nullable().optional() });
const name = z.string().trim().min(1, 'must not be empty').max(200);

export const createOrganizationBody = z.strictObject({
  name,
  pii_masking: z.boolean().optional(),
  spend_limits: limitPair.optional(),
});

export const changeOrganizationBody = z.strictObject({
  status: z.enum(['active', 'blocked']).optional(),
  pii_masking: z.boolean().optional(),
  spend_limits: limitPair.optional(),
});

export const creditsBody = z.strictObject({ amount_usd: usd });
export const teamBody = z.strictObject({ name, spend_limits: limitPair.optional() });
export const employeeBody = z.strictObject({ name, team_id: z.string().startsWith('team_').nullable().optional(), spend_limits: limitPair.optional() });
export const spaceBody = z.strictObject({ name });

const keyLimits = z.strictObject({
  daily_usd: usd.nullable().optional(),
  monthly_usd: usd.nullable().optional(),
  by_type: z.partialRecord(z.enum(MODEL_CATEGORIES), limitPair).optional(),
  by_model: z.record(z.string().min(1), limitPair).optional(),
});

const keySettings = {
  models: z.array(z.string().min(1)).nullable().optional(),
  limits: keyLimits.optional(),
  rpm: z.number().int().positive().optional(),
  tpm: z.number().int().positive().optional(),
  expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
  max_concurrent_requests: z.number().int().positive().nullable().optional(),
  max_cost_per_request_usd: usd.nullable().optional(),
};

export const issueKeyBody = z.strictObject({ name: name.nullable().optional(), employee_id: z.string().startsWith('emp_').nullable().optional(), ...keySettings });
export const changeKeyBody = z.strictObject(keySettings);

/** An organization's spend controls: its concurrency cap, and its budget alerts (replaced whole). */
export const spendControlsBody = z.strictObject({
  max_concurrent_requests: z.number().int().positive().nullable().optional(),
  budget_alerts: z
    .strictObject({
      limit_percentages: z
        .array(
          z.strictObject({
            scope: z.enum(['organization', 'key', 'team', 'employee']),
            id: z.string().min(1).nullable().optional(),
            percents: z.array(z.number().int().min(1).max(100)).min(1).max(10),
          }),
        )
        .max(500),
      low_balance_usd: usd.nullable().optional(),
    })
    .optional(),
});

const webhookUrl = z.string().refine((value) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}, 'must be an http:// or https:// URL');
export const webhookBody = z.strictObject({ url: webhookUrl, rotate_secret: z.boolean().optional() });

export type LimitPairBody = z.infer<typeof limitPair>;
export type SpendControlsBody = z.infer<typeof spendControlsBody>;
export type KeyLimitsBody = z.infer<typeof keyLimits>;
export type IssueKeyBody = z.infer<typeof issueKeyBody>;

/** Parses a body, or throws `400 invalid_request` whose message and `param` name the field at fault. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.map(String).join('.');
  const message = issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.join(', ')}` : issue.message;
  throw new GatewayError('invalid_request', field ? `${field}: ${message}` : message, field ? { param: field } : {});
}

/**
 * The bodies as the access commands take them (nanodollar strings), for the routes and for the admin CLI
 * working on the database alike.
 */
const toNanos = (value: string | null | undefined) => (value === undefined || value === null ? null : String(parseUsd(value)));

export function limitPairFromBody(body: LimitPairBody | undefined, previous?: LimitPair): LimitPair {
  return {
    daily: body?.daily_usd !== undefined ? toNanos(body.daily_usd) : previous?.daily ?? null,
    monthly: body?.monthly_usd !== undefined ? toNanos(body.monthly_usd) : previous?.monthly ?? null,
  };
}

export function keyLimitsFromBody(body: KeyLimitsBody | undefined): KeyLimits {
  const byType: KeyLimits['byType'] = {};
  for (const [category, pair] of Object.entries(body?.by_type ?? {})) byType[category as keyof KeyLimits['byType']] = limitPairFromBody(pair);
  const byModel: KeyLimits['byModel'] = {};
  for (const [model, pair] of Object.entries(body?.by_model ?? {})) byModel[model] = limitPairFromBody(pair);
  return { overall: limitPairFromBody(body), byType, byModel };
}

/**
 * The key an issue-key body asks for, with the defaults of what it leaves out: no name, no employee,
 * every model, no limits, DEFAULT_RPM and DEFAULT_TPM, no expiry, no spend controls; the expiry in UTC.
 */
export function keyToIssue(body: IssueKeyBody): KeySettings & { name: string | null; employeeId: string | null } {
  return {
    name: body.name ?? null,
    employeeId: body.employee_id ?? null,
    models: body.models ?? null,
    limits: keyLimitsFromBody(body.limits),
    rpm: body.rpm ?? DEFAULT_RPM,
    tpm: body.tpm ?? DEFAULT_TPM,
    expiresAt: body.expires_at ? new Date(body.expires_at).toISOString() : null,
    maxConcurrentRequests: body.max_concurrent_requests ?? null,
    maxCostPerRequest: toNanos(body.max_cost_per_request_usd),
  };
}
