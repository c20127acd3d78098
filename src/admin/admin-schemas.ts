import { z } from 'zod';
import { MODEL_CATEGORIES } from '../billing/categories.js';
import { GatewayError } from '../errors/gateway-error.js';
import { isUsdAmount } from '../billing/money.js';

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
};

export const issueKeyBody = z.strictObject({ name: name.nullable().optional(), employee_id: z.string().startsWith('emp_').nullable().optional(), ...keySettings });
export const changeKeyBody = z.strictObject(keySettings);

export type LimitPairBody = z.infer<typeof limitPair>;
export type KeyLimitsBody = z.infer<typeof keyLimits>;

/** Parses a body, or throws `400 invalid_request` whose message and `param` name the field at fault. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.map(String).join('.');
  const message = issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.join(', ')}` : issue.message;
  throw new GatewayError('invalid_request', field ? `${field}: ${message}` : message, field ? { param: field } : {});
}
