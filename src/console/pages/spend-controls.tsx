import { useEffect, useState } from 'preact/hooks';
import type { BudgetAlertRuleRecord, SpendControlsRecord, WebhookRecord } from '../../admin-records.js';
import { admin, get } from '../api.js';
import { formatUsdOrNone } from '../money.js';
import { ConfirmButton, ErrorNotice, Loading, Notice, useAction, useLoad, type Loaded } from '../ui.js';
import { WebhookDeliveries } from './webhook-deliveries.js';

const SCOPES: ReadonlyArray<BudgetAlertRuleRecord['scope']> = ['organization', 'key', 'team', 'employee'];

/** A rule as typed: the id empty for every key, team or employee; the percentages as "50, 80". */
interface RuleInput {
  scope: BudgetAlertRuleRecord['scope'];
  id: string;
  percents: string;
}

/**
 * The organization's spend controls: how many of its requests may run at once, its budget alerts
 * (percentages of limits, a low balance) and the webhook they are sent to, with a test and the log of
 * deliveries. A key's own caps are on the Keys tab.
 */
export function SpendControlsTab({ orgId }: { orgId: string }) {
  const controls = useLoad(() => get<SpendControlsRecord>(`/organizations/${encodeURIComponent(orgId)}/spend-controls`), [orgId]);
  const [deliveriesRound, setDeliveriesRound] = useState(0);
  return (
    <>
      <ErrorNotice error={controls.error} action="load the spend controls" />
      <Loading loaded={controls} />
      {controls.data ? (
        <>
          <ConcurrencyCap orgId={orgId} controls={controls} />
          <BudgetAlerts key={JSON.stringify(controls.data.budget_alerts)} orgId={orgId} controls={controls} />
          <Webhook orgId={orgId} controls={controls} onTestSent={() => setDeliveriesRound((round) => round + 1)} />
        </>
      ) : null}
      <WebhookDeliveries orgId={orgId} round={deliveriesRound} />
    </>
  );
}

function ConcurrencyCap({ orgId, controls }: { orgId: string; controls: Loaded<SpendControlsRecord> }) {
  const [cap, setCap] = useState(controls.data?.max_concurrent_requests?.toString() ?? '');
  useEffect(() => setCap(controls.data?.max_concurrent_requests?.toString() ?? ''), [controls.data?.max_concurrent_requests]);
  const action = useAction();
  return (
    <section aria-labelledby="concurrency">
      <h2 id="concurrency">Requests at once</h2>
      <p>At most this many requests of all the organization's keys run at once; one more gets 429. A key may have a lower cap of its own.</p>
      <form
        class="inline"
        onSubmit={async (event) => {
          event.preventDefault();
          const body = { max_concurrent_requests: cap.trim() === '' ? null : Number(cap) };
          await action.run(async () => (await admin('PATCH', `/organizations/${encodeURIComponent(orgId)}/spend-controls`, body), controls.reload()));
        }}
      >
        <label>
          Requests at once
          <input type="number" min="1" name="max_concurrent_requests" placeholder="no cap" value={cap} onInput={(event) => setCap(event.currentTarget.value)} />
        </label>
        <button type="submit" class="primary" disabled={action.busy}>
          Save cap
        </button>
      </form>
      <ErrorNotice error={action.error} action="change the cap" />
    </section>
  );
}

function BudgetAlerts({ orgId, controls }: { orgId: string; controls: Loaded<SpendControlsRecord> }) {
  const alerts = controls.data!.budget_alerts;
  const [rules, setRules] = useState<RuleInput[]>(() => alerts.limit_percentages.map((rule) => ({ scope: rule.scope, id: rule.id ?? '', percents: rule.percents.join(', ') })));
  const [lowBalance, setLowBalance] = useState(alerts.low_balance_usd ?? '');
  const action = useAction();
  const change = (index: number, patch: Partial<RuleInput>) => setRules(rules.map((rule, at) => (at === index ? { ...rule, ...patch } : rule)));
  return (
    <section aria-labelledby="budget-alerts">
      <h2 id="budget-alerts">Budget alerts</h2>
      <p>
        A webhook when settled spend reaches a percentage of a daily or monthly limit (once per period and limit), and when the balance falls below a level
        (again only after a top-up back above it). Now: {alerts.limit_percentages.length} rule(s), low balance {formatUsdOrNone(alerts.low_balance_usd, 'not watched')}.
      </p>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          const limit_percentages = rules.map((rule) => ({
            scope: rule.scope,
            id: rule.scope === 'organization' || rule.id.trim() === '' ? null : rule.id.trim(),
            percents: rule.percents
              .split(',')
              .map((part) => part.trim())
              .filter((part) => part !== '')
              .map(Number),
          }));
          const body = { budget_alerts: { limit_percentages, low_balance_usd: lowBalance.trim() === '' ? null : lowBalance.trim() } };
          await action.run(async () => (await admin('PATCH', `/organizations/${encodeURIComponent(orgId)}/spend-controls`, body), controls.reload()));
        }}
      >
        {rules.map((rule, index) => (
          <fieldset class="rule" key={index}>
            <legend>Rule {index + 1}</legend>
            <label>
              Scope
              <select value={rule.scope} onChange={(event) => change(index, { scope: event.currentTarget.value as RuleInput['scope'] })}>
                {SCOPES.map((scope) => (
                  <option key={scope} value={scope}>
                    {scope}
                  </option>
                ))}
              </select>
            </label>
            {rule.scope !== 'organization' ? (
              <label>
                Id <span class="hint">(empty: every {rule.scope})</span>
                <input value={rule.id} onInput={(event) => change(index, { id: event.currentTarget.value })} />
              </label>
            ) : null}
            <label>
              Percentages of the limit
              <input value={rule.percents} placeholder="50, 80, 100" required onInput={(event) => change(index, { percents: event.currentTarget.value })} />
            </label>
            <button type="button" onClick={() => setRules(rules.filter((_, at) => at !== index))}>
              Remove rule
            </button>
          </fieldset>
        ))}
        <button type="button" onClick={() => setRules([...rules, { scope: 'key', id: '', percents: '80, 100' }])}>
          Add a rule
        </button>
        <div class="inline">
          <label>
            Low balance (USD)
            <input inputMode="decimal" name="low_balance_usd" placeholder="not watched" value={lowBalance} onInput={(event) => setLowBalance(event.currentTarget.value)} />
          </label>
          <button type="submit" class="primary" disabled={action.busy}>
            Save alerts
          </button>
        </div>
      </form>
      <ErrorNotice error={action.error} action="change the budget alerts" />
    </section>
  );
}

function Webhook({ orgId, controls, onTestSent }: { orgId: string; controls: Loaded<SpendControlsRecord>; onTestSent: () => void }) {
  const current = controls.data!.webhook;
  const [url, setUrl] = useState(current?.url ?? '');
  const [secret, setSecret] = useState<string | undefined>();
  const [sent, setSent] = useState('');
  const action = useAction();
  const org = encodeURIComponent(orgId);
  const put = (rotate: boolean) =>
    action.run(async () => {
      const webhook = await admin<WebhookRecord>('PUT', `/organizations/${org}/webhook`, { url: url.trim(), rotate_secret: rotate });
      setSecret(webhook.secret);
      controls.reload();
    });
  return (
    <section aria-labelledby="webhook">
      <h2 id="webhook">Webhook</h2>
      <p>
        {current ? (
          <>
            Alerts go to <code>{current.url}</code>, signed with the secret ending <code>{current.secret_hint}</code> (Standard Webhooks: <code>webhook-id</code>,{' '}
            <code>webhook-timestamp</code>, <code>webhook-signature</code>).
          </>
        ) : (
          'No webhook: alerts are logged below and not sent.'
        )}
      </p>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          void put(false);
        }}
      >
        <label>
          Webhook URL
          <input type="url" name="webhook_url" required size={50} value={url} onInput={(event) => setUrl(event.currentTarget.value)} />
        </label>
        <button type="submit" class="primary" disabled={action.busy}>
          {current ? 'Save URL' : 'Set webhook'}
        </button>
        {current ? (
          <>
            <button type="button" disabled={action.busy} onClick={() => void put(true)}>
              New secret
            </button>
            <button
              type="button"
              disabled={action.busy}
              onClick={() => void action.run(async () => (await admin('POST', `/organizations/${org}/webhook/test`), setSent('A sample was queued; it appears in the log below.'), onTestSent()))}
            >
              Send a test
            </button>
            <ConfirmButton
              label="Remove webhook"
              question="Remove the webhook? Alerts are then logged and not sent."
              confirmLabel="Remove"
              danger
              disabled={action.busy}
              onConfirm={() => void action.run(async () => (await admin('DELETE', `/organizations/${org}/webhook`), controls.reload()))}
            />
          </>
        ) : null}
      </form>
      {secret ? (
        <div class="secret" role="region" aria-labelledby="webhook-secret">
          <h3 id="webhook-secret">The webhook's signing secret: copy it now</h3>
          <p>It is shown this once; the receiver checks each alert's signature with it.</p>
          <input id="new-webhook-secret" aria-label="Signing secret" readOnly value={secret} size={50} onFocus={(event) => event.currentTarget.select()} />
          <button type="button" onClick={() => setSecret(undefined)}>
            I have stored it
          </button>
        </div>
      ) : null}
      {sent ? <Notice>{sent}</Notice> : null}
      <ErrorNotice error={action.error} action="change the webhook" />
    </section>
  );
}
