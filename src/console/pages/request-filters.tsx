import { useState } from 'preact/hooks';
import type { KeyRecord, ListRecord, ModelRecord, RequestLogRecord, SpaceRecord } from '../../admin-records.js';
import { get } from '../api.js';
import { ENDPOINTS, STATUS_NAMES } from '../request-format.js';
import { requestsHref, type RequestFilter } from '../routes.js';
import { ErrorNotice, useAction, useLoad } from '../ui.js';

/**
 * The request log's filters. They live in the URL (router.ts): applying them opens the log's address with
 * them, so the back button and a bookmark give the same page. Times are UTC, the API's.
 */
export function RequestFilters({ orgId, filter }: { orgId: string | undefined; filter: RequestFilter }) {
  const [draft, setDraft] = useState<RequestFilter>(() => ({ ...filter, from: localTime(filter.from), to: localTime(filter.to) }));
  const org = orgId === undefined ? undefined : `/organizations/${encodeURIComponent(orgId)}`;
  // Within an organization its keys and spaces are offered by name; across all, ids are typed.
  const keys = useLoad(async () => (org ? (await get<ListRecord<KeyRecord>>(`${org}/keys`)).data : []), [orgId]);
  const spaces = useLoad(async () => (org ? (await get<ListRecord<SpaceRecord>>(`${org}/spaces`)).data : []), [orgId]);
  const models = useLoad(() => get<ListRecord<ModelRecord>>('/models'), []);
  const set = (name: keyof RequestFilter) => (event: { currentTarget: HTMLInputElement | HTMLSelectElement }) => setDraft({ ...draft, [name]: event.currentTarget.value });
  const choose = (label: string, name: keyof RequestFilter, options: ReadonlyArray<readonly [string, string]>) => (
    <label>
      {label}
      <select name={name} value={draft[name] ?? ''} onChange={set(name)}>
        <option value="">any</option>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <form
      class="inline filters"
      aria-label="Filter the requests"
      onSubmit={(event) => {
        event.preventDefault();
        location.hash = requestsHref(orgId, { ...draft, from: utcTime(draft.from), to: utcTime(draft.to), request: undefined });
      }}
    >
      {org ? (
        choose('Key', 'key_id', (keys.data ?? []).map((key) => [key.id, key.name ?? key.id]))
      ) : (
        <label>
          Key id
          <input name="key_id" placeholder="key_…" value={draft.key_id ?? ''} onInput={set('key_id')} />
        </label>
      )}
      {choose('Model', 'model', (models.data?.data ?? []).map((model) => [model.id, model.id]))}
      {org ? (
        choose('Space', 'space_id', (spaces.data ?? []).map((space) => [space.id, space.name]))
      ) : (
        <label>
          Space id
          <input name="space_id" placeholder="spc_…" value={draft.space_id ?? ''} onInput={set('space_id')} />
        </label>
      )}
      {choose('Endpoint', 'endpoint', ENDPOINTS.map((endpoint) => [endpoint, endpoint]))}
      {choose('Status', 'status', Object.entries(STATUS_NAMES))}
      <label>
        From (UTC)
        <input type="datetime-local" name="from" value={draft.from ?? ''} onInput={set('from')} />
      </label>
      <label>
        To (UTC)
        <input type="datetime-local" name="to" value={draft.to ?? ''} onInput={set('to')} />
      </label>
      <button type="submit" class="primary">
        Filter
      </button>
      <a class="button" href={requestsHref(orgId)}>
        Clear
      </a>
      <ErrorNotice error={keys.error ?? spaces.error ?? models.error} action="load the filter's choices" />
    </form>
  );
}

/** A request id typed or pasted: its page of the log, the request at the top and its events open. */
export function RequestSearch({ orgId }: { orgId: string | undefined }) {
  const [id, setId] = useState('');
  const search = useAction();
  return (
    <form
      class="inline"
      role="search"
      aria-label="Find a request"
      onSubmit={async (event) => {
        event.preventDefault();
        let found: RequestLogRecord | undefined;
        if (await search.run(async () => (found = await get<RequestLogRecord>(`/requests/${encodeURIComponent(id.trim())}`))) && found) {
          // a request of another organization opens in that organization's log
          location.hash = requestsHref(orgId === undefined ? undefined : found.organization_id, { request: found.id });
        }
      }}
    >
      <label>
        Request id
        <input name="request_id" placeholder="gen-…" required value={id} onInput={(event) => setId(event.currentTarget.value)} />
      </label>
      <button type="submit" disabled={search.busy}>
        Find
      </button>
      <ErrorNotice error={search.error} action="find the request" />
    </form>
  );
}

/** `datetime-local` values are read as UTC: the API's `…Z` time without its seconds and zone, and back. */
const localTime = (iso: string | undefined) => (iso ? iso.slice(0, 16) : undefined);
const utcTime = (local: string | undefined) => (local ? `${local.slice(0, 16)}:00Z` : undefined);
