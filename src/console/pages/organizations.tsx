import { useState } from 'preact/hooks';
import type { ListedOrganizationRecord, OrganizationRecord, PageRecord } from '../../admin-records.js';
import { admin, get } from '../api.js';
import { formatUsd } from '../money.js';
import { href } from '../routes.js';
import { ErrorNotice, Loading, Pager, PAGE_SIZE, useAction, useCursor, useLoad } from '../ui.js';

/** Every organization, a page at a time, and the form that creates one. */
export function OrganizationsPage() {
  const cursor = useCursor();
  const list = useLoad(() => get<PageRecord<ListedOrganizationRecord>>('/organizations', { limit: PAGE_SIZE, after: cursor.after }), [cursor.after]);
  return (
    <>
      <h1 tabIndex={-1}>Organizations</h1>
      <CreateOrganization />
      <section aria-labelledby="org-list">
        <h2 id="org-list">All organizations</h2>
        <ErrorNotice error={list.error} action="load the organizations" />
        <Loading loaded={list} />
        {list.data && list.data.data.length === 0 && cursor.pageNumber === 1 ? <p>No organization yet.</p> : null}
        {list.data && list.data.data.length > 0 ? (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Status</th>
                <th scope="col" class="number">Balance</th>
                <th scope="col" class="number">Reserved</th>
                <th scope="col">PII masking</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((organization) => (
                <tr key={organization.id}>
                  <td>
                    <a href={href({ page: 'organization', orgId: organization.id, tab: 'overview' })}>{organization.name}</a>
                  </td>
                  <td>
                    <code>{organization.id}</code>
                  </td>
                  <td>
                    <span class={`status ${organization.status}`}>{organization.status}</span>
                  </td>
                  <td class="number">{formatUsd(organization.balance_usd)}</td>
                  <td class="number">{formatUsd(organization.reserved_usd)}</td>
                  <td>{organization.pii_masking ? 'on' : 'off'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        <Pager
          label="Organizations"
          pageNumber={cursor.pageNumber}
          hasPrevious={cursor.pageNumber > 1}
          hasNext={list.data?.has_more ?? false}
          onPrevious={cursor.previous}
          onNext={() => cursor.next(list.data?.last_id ?? null)}
        />
      </section>
    </>
  );
}

function CreateOrganization() {
  const [name, setName] = useState('');
  const [pii, setPii] = useState(false);
  const action = useAction();
  return (
    <section aria-labelledby="org-create">
      <h2 id="org-create">New organization</h2>
      <form
        class="inline"
        onSubmit={async (event) => {
          event.preventDefault();
          let created: OrganizationRecord | undefined;
          const done = await action.run(async () => (created = await admin<OrganizationRecord>('POST', '/organizations', { name, pii_masking: pii })));
          if (done && created) location.hash = href({ page: 'organization', orgId: created.id, tab: 'overview' });
        }}
      >
        <label>
          Name
          <input name="name" required maxLength={200} value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
        <label class="check">
          <input type="checkbox" name="pii_masking" checked={pii} onChange={(event) => setPii(event.currentTarget.checked)} />
          PII masking
        </label>
        <button type="submit" class="primary" disabled={action.busy}>
          Create organization
        </button>
      </form>
      <ErrorNotice error={action.error} action="create the organization" />
    </section>
  );
}
