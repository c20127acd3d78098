import { useState } from 'preact/hooks';
import { admin, get } from '../api.js';
import type { EmployeeRecord, ListRecord, SpaceRecord, TeamRecord } from '../../admin-records.js';
import { formatLimits } from '../money.js';
import { ErrorNotice, Loading, Pager, useAction, useLoad, usePages } from '../ui.js';

/** Teams, employees and spaces of an organization: lists, and the forms that add one. */
export function PeopleTab({ orgId }: { orgId: string }) {
  const org = `/organizations/${encodeURIComponent(orgId)}`;
  const teams = useLoad(() => get<ListRecord<TeamRecord>>(`${org}/teams`), [orgId]);
  const employees = useLoad(() => get<ListRecord<EmployeeRecord>>(`${org}/employees`), [orgId]);
  const spaces = useLoad(() => get<ListRecord<SpaceRecord>>(`${org}/spaces`), [orgId]);
  const teamName = (id: string | null) => (id ? (teams.data?.data.find((team) => team.id === id)?.name ?? id) : '—');
  return (
    <div class="columns">
      <section aria-labelledby="teams">
        <h2 id="teams">Teams</h2>
        <AddByName what="team" path={`${org}/teams`} onAdded={teams.reload} />
        <ErrorNotice error={teams.error} action="load the teams" />
        <Loading loaded={teams} />
        <Rows items={teams.data?.data} label="Teams" head={['Name', 'Id', 'Limits']} row={(team) => [team.name, <code>{team.id}</code>, formatLimits(team.spend_limits)]} />
      </section>
      <section aria-labelledby="employees">
        <h2 id="employees">Employees</h2>
        <AddByName what="employee" path={`${org}/employees`} onAdded={employees.reload} teams={teams.data?.data} />
        <ErrorNotice error={employees.error} action="load the employees" />
        <Loading loaded={employees} />
        <Rows
          items={employees.data?.data}
          label="Employees"
          head={['Name', 'Id', 'Team', 'Limits']}
          row={(employee) => [employee.name, <code>{employee.id}</code>, teamName(employee.team_id), formatLimits(employee.spend_limits)]}
        />
      </section>
      <section aria-labelledby="spaces">
        <h2 id="spaces">Spaces</h2>
        <p class="hint">A request sent with <code>X-Service-Space: spc_…</code> is billed to the space.</p>
        <AddByName what="space" path={`${org}/spaces`} onAdded={spaces.reload} />
        <ErrorNotice error={spaces.error} action="load the spaces" />
        <Loading loaded={spaces} />
        <Rows items={spaces.data?.data} label="Spaces" head={['Name', 'Id']} row={(space) => [space.name, <code>{space.id}</code>]} />
      </section>
    </div>
  );
}

function Rows<T extends { id: string }>({ items, label, head, row }: { items: T[] | undefined; label: string; head: string[]; row: (item: T) => unknown[] }) {
  const pages = usePages(items);
  if (!items) return null;
  if (items.length === 0) return <p>None yet.</p>;
  return (
    <>
      <table>
        <thead>
          <tr>
            {head.map((title) => (
              <th scope="col" key={title}>
                {title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {pages.items.map((item) => (
            <tr key={item.id}>
              {row(item).map((cell, index) => (
                <td key={index}>{cell as string}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <Pager label={label} {...pages.pager} />
    </>
  );
}

function AddByName({ what, path, onAdded, teams }: { what: string; path: string; onAdded: () => void; teams?: TeamRecord[] }) {
  const [name, setName] = useState('');
  const [teamId, setTeamId] = useState('');
  const action = useAction();
  return (
    <>
      <form
        class="inline"
        onSubmit={async (event) => {
          event.preventDefault();
          const body = { name, ...(teamId ? { team_id: teamId } : {}) };
          if (await action.run(() => admin('POST', path, body))) {
            setName('');
            onAdded();
          }
        }}
      >
        <label>
          New {what}
          <input name={`${what}_name`} required maxLength={200} value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
        {teams ? (
          <label>
            Team
            <select aria-label={`Team of the ${what}`} value={teamId} onChange={(event) => setTeamId(event.currentTarget.value)}>
              <option value="">none</option>
              {teams.map((team) => (
                <option key={team.id} value={team.id}>
                  {team.name}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <button type="submit" disabled={action.busy}>
          Add {what}
        </button>
      </form>
      <ErrorNotice error={action.error} action={`add the ${what}`} />
    </>
  );
}
