import { useState } from 'preact/hooks';
import { admin, get } from '../api.js';
import type { EmployeeRecord, IssuedKeyRecord, KeyRecord, ListRecord, ModelRecord } from '../../admin-records.js';
import { formatLimits, formatUsd } from '../money.js';
import { ConfirmButton, ErrorNotice, Loading, Pager, useAction, useLoad, usePages } from '../ui.js';
import { EMPTY_KEY_LIMITS, KeyLimitsForm, type KeyLimitsInput, keyLimitsBody } from './key-limits-form.js';

/** The organization's keys: issue one (its secret shown once), change its limits, revoke it. */
export function KeysTab({ orgId }: { orgId: string }) {
  const org = encodeURIComponent(orgId);
  const keys = useLoad(() => get<ListRecord<KeyRecord>>(`/organizations/${org}/keys`), [orgId]);
  const employees = useLoad(() => get<ListRecord<EmployeeRecord>>(`/organizations/${org}/employees`), [orgId]);
  const models = useLoad(() => get<ListRecord<ModelRecord>>('/models'), []);
  const catalog = models.data?.data.map((model) => model.id) ?? [];
  const pages = usePages(keys.data?.data);
  const [editing, setEditing] = useState<string | undefined>();
  const revoke = useAction();
  return (
    <>
      <ErrorNotice error={models.error} action="load the catalog's models" />
      <IssueKey orgId={orgId} employees={employees.data?.data ?? []} catalog={catalog} onIssued={keys.reload} />
      <section aria-labelledby="key-list">
        <h2 id="key-list">Keys</h2>
        <ErrorNotice error={keys.error} action="load the keys" />
        <ErrorNotice error={revoke.error} action="revoke the key" />
        <Loading loaded={keys} />
        {keys.data && keys.data.data.length === 0 ? <p>No key yet.</p> : null}
        {pages.items.length > 0 ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Secret</th>
                <th scope="col">Status</th>
                <th scope="col">Models</th>
                <th scope="col">Limits</th>
                <th scope="col">Rate</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((key) => (
                <tr key={key.id} data-key-id={key.id}>
                  <td>{key.name ?? '—'}</td>
                  <td>
                    <code>{key.id}</code>
                  </td>
                  <td>
                    <code>{key.secret_hint}</code>
                  </td>
                  <td>
                    <span class={`status ${key.status}`}>{key.status}</span>
                  </td>
                  <td>{key.models ? key.models.join(', ') : 'all'}</td>
                  <td>
                    {formatLimits(key.limits)}
                  </td>
                  <td>
                    {key.rpm} rpm, {key.tpm} tpm
                    {key.max_concurrent_requests === null ? '' : `, ${key.max_concurrent_requests} at once`}
                    {key.max_cost_per_request_usd === null ? '' : `, at most ${formatUsd(key.max_cost_per_request_usd)} a request`}
                  </td>
                  <td>
                    {key.status !== 'revoked' ? (
                      <div class="actions">
                        <button type="button" aria-expanded={editing === key.id} onClick={() => setEditing(editing === key.id ? undefined : key.id)}>
                          Edit limits
                        </button>
                        <ConfirmButton
                          label="Revoke"
                          question={`Revoke key ${key.name ?? key.id} (…${key.secret_hint})? The next request with it is refused; this cannot be undone.`}
                          confirmLabel="Revoke key"
                          danger
                          disabled={revoke.busy}
                          onConfirm={() => void revoke.run(async () => (await admin('POST', `/keys/${encodeURIComponent(key.id)}/revoke`), keys.reload()))}
                        />
                      </div>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        <Pager label="Keys" {...pages.pager} />
        {editing ? <EditKey key={editing} catalog={catalog} keyRecord={keys.data?.data.find((key) => key.id === editing)} onDone={() => (setEditing(undefined), keys.reload())} /> : null}
      </section>
    </>
  );
}

function IssueKey({ orgId, employees, catalog, onIssued }: { orgId: string; employees: EmployeeRecord[]; catalog: string[]; onIssued: () => void }) {
  const [name, setName] = useState('');
  const [employeeId, setEmployeeId] = useState('');
  const [limits, setLimits] = useState<KeyLimitsInput>(EMPTY_KEY_LIMITS);
  const [issued, setIssued] = useState<{ id: string; secret: string } | undefined>();
  const action = useAction();
  return (
    <section aria-labelledby="key-issue">
      <h2 id="key-issue">Issue a key</h2>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          await action.run(async () => {
            const body = { ...(name.trim() ? { name: name.trim() } : {}), ...(employeeId ? { employee_id: employeeId } : {}), ...keyLimitsBody(limits, 'issue') };
            const key = await admin<IssuedKeyRecord>('POST', `/organizations/${encodeURIComponent(orgId)}/keys`, body);
            setIssued({ id: key.id, secret: key.key });
            setName('');
            onIssued();
          });
        }}
      >
        <div class="grid">
          <label>
            Name
            <input name="key_name" value={name} maxLength={200} onInput={(event) => setName(event.currentTarget.value)} />
          </label>
          <label>
            Employee
            <select name="employee_id" aria-label="Employee" value={employeeId} onChange={(event) => setEmployeeId(event.currentTarget.value)}>
              <option value="">none</option>
              {employees.map((employee) => (
                <option key={employee.id} value={employee.id}>
                  {employee.name}
                </option>
              ))}
            </select>
          </label>
          <KeyLimitsForm value={limits} onChange={setLimits} catalog={catalog} />
        </div>
        <button type="submit" class="primary" disabled={action.busy}>
          Issue key
        </button>
      </form>
      <ErrorNotice error={action.error} action="issue the key" />
      {issued ? <SecretOnce secret={issued.secret} keyId={issued.id} onDismiss={() => setIssued(undefined)} /> : null}
    </section>
  );
}

/** The secret exists only in this answer: the gateway keeps its hash, so it is shown here once. */
function SecretOnce({ secret, keyId, onDismiss }: { secret: string; keyId: string; onDismiss: () => void }) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      // the clipboard API needs https (or localhost): select the text for a manual copy instead
      document.querySelector<HTMLInputElement>('#new-secret')?.select();
      setCopied('Select-and-copy: the text is selected, press Ctrl+C.');
    }
  };
  return (
    <div class="secret" role="region" aria-labelledby="secret-title">
      <h3 id="secret-title">New key {keyId}: copy its secret now</h3>
      <p>This is the only time the secret is shown. The gateway keeps only its hash.</p>
      <div class="inline">
        <label for="new-secret" class="visually-hidden">
          Secret
        </label>
        <input id="new-secret" readOnly value={secret} size={62} onFocus={(event) => event.currentTarget.select()} />
        <button type="button" onClick={copy}>
          Copy
        </button>
        <button type="button" onClick={onDismiss}>
          I have stored it
        </button>
      </div>
      <p role="status">{copied}</p>
    </div>
  );
}

function EditKey({ keyRecord, catalog, onDone }: { keyRecord: KeyRecord | undefined; catalog: string[]; onDone: () => void }) {
  const [limits, setLimits] = useState<KeyLimitsInput>(() => ({
    models: keyRecord?.models ?? [],
    daily: keyRecord?.limits.daily_usd ?? '',
    monthly: keyRecord?.limits.monthly_usd ?? '',
    rpm: String(keyRecord?.rpm ?? ''),
    tpm: String(keyRecord?.tpm ?? ''),
    expiresAt: keyRecord?.expires_at?.slice(0, 16) ?? '',
    maxConcurrent: keyRecord?.max_concurrent_requests === null || keyRecord === undefined ? '' : String(keyRecord.max_concurrent_requests),
    maxCost: keyRecord?.max_cost_per_request_usd ?? '',
  }));
  const action = useAction();
  if (!keyRecord) return null;
  return (
    <section aria-labelledby="key-edit" class="panel">
      <h3 id="key-edit">Limits of {keyRecord.name ?? keyRecord.id}</h3>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          // limits replace the key's as a whole: keep its per-type and per-model limits as they are
          const body = keyLimitsBody(limits, 'edit', keyRecord.limits);
          if (await action.run(() => admin('PATCH', `/keys/${encodeURIComponent(keyRecord.id)}`, body))) onDone();
        }}
      >
        <div class="grid">
          <KeyLimitsForm value={limits} onChange={setLimits} catalog={catalog} />
        </div>
        <button type="submit" class="primary" disabled={action.busy}>
          Save limits
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </form>
      <ErrorNotice error={action.error} action="change the key" />
    </section>
  );
}
