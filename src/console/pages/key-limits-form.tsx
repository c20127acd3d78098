import type { KeyRecord } from '../../admin-records.js';

/** The fields a key's issue and edit forms share, kept as the text typed; the API checks the values. */
export interface KeyLimitsInput {
  /** None chosen: every model of the catalog. */
  models: string[];
  daily: string;
  monthly: string;
  rpm: string;
  tpm: string;
  /** `datetime-local` value, read as UTC. */
  expiresAt: string;
  /** The key's requests at once (`max_concurrent_requests`); empty: no cap. */
  maxConcurrent: string;
  /** The cost cap of a request (`max_cost_per_request_usd`); empty: none. */
  maxCost: string;
}

export const EMPTY_KEY_LIMITS: KeyLimitsInput = { models: [], daily: '', monthly: '', rpm: '', tpm: '', expiresAt: '', maxConcurrent: '', maxCost: '' };

export function KeyLimitsForm({ value, onChange, catalog }: { value: KeyLimitsInput; onChange: (value: KeyLimitsInput) => void; catalog: readonly string[] }) {
  const field = (name: Exclude<keyof KeyLimitsInput, 'models'>) => ({
    name,
    value: value[name],
    onInput: (event: { currentTarget: HTMLInputElement }) => onChange({ ...value, [name]: event.currentTarget.value }),
  });
  return (
    <>
      <fieldset class="models">
        <legend>
          Allowed models <span class="hint">(none ticked: every model)</span>
        </legend>
        {[...new Set([...catalog, ...value.models])].map((model) => (
          <label class="check" key={model}>
            <input
              type="checkbox"
              name="models"
              value={model}
              checked={value.models.includes(model)}
              onChange={(event) => onChange({ ...value, models: event.currentTarget.checked ? [...value.models, model] : value.models.filter((chosen) => chosen !== model) })}
            />
            {model}
          </label>
        ))}
      </fieldset>
      <label>
        Daily limit (USD)
        <input inputMode="decimal" placeholder="none" {...field('daily')} />
      </label>
      <label>
        Monthly limit (USD)
        <input inputMode="decimal" placeholder="none" {...field('monthly')} />
      </label>
      <label>
        Requests per minute
        <input type="number" min="1" placeholder="120" {...field('rpm')} />
      </label>
      <label>
        Tokens per minute
        <input type="number" min="1" placeholder="200000" {...field('tpm')} />
      </label>
      <label>
        Expires at (UTC)
        <input type="datetime-local" {...field('expiresAt')} />
      </label>
      <label>
        Requests at once
        <input type="number" min="1" placeholder="no cap" {...field('maxConcurrent')} />
      </label>
      <label>
        Cost cap per request (USD)
        <input inputMode="decimal" placeholder="none" {...field('maxCost')} />
      </label>
    </>
  );
}

/**
 * The body for `POST …/keys` (issue: empty fields are left out, the gateway's defaults apply) or
 * `PATCH /keys/{id}` (edit: an empty field clears the limit, the model list, the expiry or the cap).
 */
export function keyLimitsBody(input: KeyLimitsInput, mode: 'issue' | 'edit', previous?: KeyRecord['limits']): Record<string, unknown> {
  const models = input.models;
  const money = (text: string) => (text.trim() === '' ? null : text.trim());
  const body: Record<string, unknown> = {};
  if (models.length > 0) body.models = models;
  else if (mode === 'edit') body.models = null;
  const limits = { daily_usd: money(input.daily), monthly_usd: money(input.monthly) };
  if (mode === 'edit') body.limits = { ...limits, by_type: previous?.by_type ?? {}, by_model: previous?.by_model ?? {} };
  else if (limits.daily_usd !== null || limits.monthly_usd !== null) body.limits = limits;
  if (input.rpm.trim()) body.rpm = Number(input.rpm);
  if (input.tpm.trim()) body.tpm = Number(input.tpm);
  if (input.expiresAt) body.expires_at = new Date(`${input.expiresAt}:00Z`).toISOString();
  else if (mode === 'edit') body.expires_at = null;
  if (input.maxConcurrent.trim()) body.max_concurrent_requests = Number(input.maxConcurrent);
  else if (mode === 'edit') body.max_concurrent_requests = null;
  if (input.maxCost.trim()) body.max_cost_per_request_usd = input.maxCost.trim();
  else if (mode === 'edit') body.max_cost_per_request_usd = null;
  return body;
}
