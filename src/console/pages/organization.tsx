import { useState } from 'preact/hooks';
import { admin, get } from '../api.js';
import type { OrganizationRecord } from '../../admin-records.js';
import { href, ORGANIZATION_TABS, type OrganizationTab, type RequestFilter } from '../routes.js';
import { formatLimits, formatUsd } from '../money.js';
import { ConfirmButton, ErrorNotice, Loading, Notice, useAction, useLoad, type Loaded } from '../ui.js';
import { KeysTab } from './keys.js';
import { PeopleTab } from './people.js';
import { RequestLog } from './request-log.js';
import { ReservationsTab } from './reservations.js';
import { VideoJobsTab } from './video-jobs.js';
import { SpendTab } from './spend.js';
import { SpendControlsTab } from './spend-controls.js';

const TAB_NAMES: Record<OrganizationTab, string> = {
  overview: 'Overview',
  keys: 'Keys',
  people: 'Teams, employees, spaces',
  spend: 'Spend',
  requests: 'Requests',
  reservations: 'Open reservations',
  videos: 'Video jobs',
  controls: 'Caps and alerts',
};

/** One organization: its money and settings, and tabs for its keys, people, spend, requests, reservations, video jobs and spend controls. */
export function OrganizationPage({ orgId, tab, filter }: { orgId: string; tab: OrganizationTab; filter: RequestFilter }) {
  const organization = useLoad(() => get<OrganizationRecord>(`/organizations/${encodeURIComponent(orgId)}`), [orgId]);
  return (
    <>
      <p class="crumbs">
        <a href={href({ page: 'organizations' })}>Organizations</a> /
      </p>
      <h1 tabIndex={-1}>
        {organization.data?.name ?? 'Organization'} <code class="id">{orgId}</code>
      </h1>
      <ErrorNotice error={organization.error} action="load the organization" />
      <nav class="tabs" aria-label="Organization">
        {ORGANIZATION_TABS.map((name) => (
          <a key={name} href={href({ page: 'organization', orgId, tab: name })} aria-current={name === tab ? 'page' : undefined}>
            {TAB_NAMES[name]}
          </a>
        ))}
      </nav>
      {tab === 'overview' ? <Overview orgId={orgId} organization={organization} /> : null}
      {tab === 'keys' ? <KeysTab orgId={orgId} /> : null}
      {tab === 'people' ? <PeopleTab orgId={orgId} /> : null}
      {tab === 'spend' ? <SpendTab orgId={orgId} /> : null}
      {tab === 'requests' ? <RequestLog orgId={orgId} filter={filter} /> : null}
      {tab === 'reservations' ? <ReservationsTab orgId={orgId} /> : null}
      {tab === 'videos' ? <VideoJobsTab orgId={orgId} /> : null}
      {tab === 'controls' ? <SpendControlsTab orgId={orgId} /> : null}
    </>
  );
}

function Overview({ orgId, organization }: { orgId: string; organization: Loaded<OrganizationRecord> }) {
  const change = useAction();
  const shown = organization.data;
  const patch = (body: object) => change.run(async () => {
    await admin('PATCH', `/organizations/${encodeURIComponent(orgId)}`, body);
    organization.reload();
  });
  return (
    <section aria-labelledby="overview">
      <h2 id="overview">Overview</h2>
      <Loading loaded={organization} />
      {shown ? (
        <>
          <dl class="facts">
            <div>
              <dt>Balance</dt>
              <dd data-testid="balance">{formatUsd(shown.balance_usd)}</dd>
            </div>
            <div>
              <dt>Reserved</dt>
              <dd data-testid="reserved">{formatUsd(shown.reserved_usd)}</dd>
            </div>
            <div>
              <dt>Status</dt>
              <dd>
                <span class={`status ${shown.status}`} data-testid="status">{shown.status}</span>
              </dd>
            </div>
            <div>
              <dt>PII masking</dt>
              <dd data-testid="pii-masking">{shown.pii_masking ? 'on: requests without X-PII-Masking are masked, and charged the masking fee' : 'off'}</dd>
            </div>
            <div>
              <dt>Spend limits</dt>
              <dd>
                {formatLimits(shown.spend_limits)}
              </dd>
            </div>
          </dl>
          <div class="actions">
            {shown.status === 'active' ? (
              <ConfirmButton
                label="Block organization"
                question={`Block ${shown.name}? Every request with its keys is refused (403 account_blocked) until it is unblocked.`}
                confirmLabel="Block"
                danger
                disabled={change.busy}
                onConfirm={() => void patch({ status: 'blocked' })}
              />
            ) : (
              <button type="button" disabled={change.busy} onClick={() => void patch({ status: 'active' })}>
                Unblock organization
              </button>
            )}
            <button type="button" disabled={change.busy} onClick={() => void patch({ pii_masking: !shown.pii_masking })}>
              {shown.pii_masking ? 'Turn PII masking off' : 'Turn PII masking on'}
            </button>
          </div>
          <ErrorNotice error={change.error} action="change the organization" />
          <TopUp orgId={orgId} onDone={organization.reload} />
        </>
      ) : null}
    </section>
  );
}

/**
 * The Idempotency-Key is made once per form and kept until the top-up succeeds: a double click, or a retry
 * after a lost answer, sends the same key and the gateway credits once.
 */
function TopUp({ orgId, onDone }: { orgId: string; onDone: () => void }) {
  const [amount, setAmount] = useState('');
  const [idempotencyKey, setIdempotencyKey] = useState(() => crypto.randomUUID());
  const [done, setDone] = useState('');
  const action = useAction();
  return (
    <section aria-labelledby="top-up">
      <h3 id="top-up">Top up</h3>
      <form
        class="inline"
        onSubmit={async (event) => {
          event.preventDefault();
          setDone('');
          const credited = await action.run(() =>
            admin<OrganizationRecord>('POST', `/organizations/${encodeURIComponent(orgId)}/credits`, { amount_usd: amount.trim() }, { 'idempotency-key': idempotencyKey }),
          );
          if (credited) {
            setDone(`${formatUsd(amount)} added.`);
            setAmount('');
            setIdempotencyKey(crypto.randomUUID());
            onDone();
          }
        }}
      >
        <label>
          Amount (USD)
          <input name="amount_usd" inputMode="decimal" pattern="[0-9]+(\.[0-9]{1,9})?" title="a USD amount such as 25 or 12.50" required value={amount} onInput={(event) => setAmount(event.currentTarget.value)} />
        </label>
        <button type="submit" class="primary">
          Add credits
        </button>
      </form>
      {done ? <Notice>{done}</Notice> : null}
      <ErrorNotice error={action.error} action="add credits" />
    </section>
  );
}
