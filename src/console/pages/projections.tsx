import { useState } from 'preact/hooks';
import { admin, get } from '../api.js';
import type { ListRecord, ProjectionRebuildRecord, ProjectionStatusRecord } from '../../admin-records.js';
import { ConfirmButton, ErrorNotice, Loading, Notice, useAction, useLoad } from '../ui.js';

/** The read models: how far each is behind the log, and a rebuild from the log (a new generation). */
export function ProjectionsPage() {
  const list = useLoad(() => get<ListRecord<ProjectionStatusRecord>>('/projections'), []);
  const rebuild = useAction();
  const [result, setResult] = useState<ProjectionRebuildRecord | undefined>();
  return (
    <>
      <h1 tabIndex={-1}>Projections</h1>
      <p class="hint">Read models built from the event log. A rebuild replays the whole log into a new generation and switches to it when it has caught up.</p>
      <button type="button" onClick={list.reload}>
        Refresh
      </button>
      <ErrorNotice error={list.error} action="load the projections" />
      <ErrorNotice error={rebuild.error} action="rebuild the projection" />
      {result ? (
        <Notice>
          {result.projection} rebuilt as generation {result.generation}: {result.events_processed} events in {result.elapsed_ms} ms.
        </Notice>
      ) : null}
      <Loading loaded={list} />
      {list.data ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Projection</th>
              <th scope="col">Status</th>
              <th scope="col" class="number">Generation</th>
              <th scope="col" class="number">Events processed</th>
              <th scope="col" class="number">Events behind</th>
              <th scope="col" class="number">Lag (ms)</th>
              <th scope="col">Version (built / code)</th>
              <th scope="col">Updated</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((projection) => (
              <tr key={projection.projection}>
                <td>{projection.projection}</td>
                <td>
                  <span class={`status ${projection.status}`}>{projection.status}</span>
                </td>
                <td class="number">{projection.generation}</td>
                <td class="number">{projection.events_processed}</td>
                <td class="number">{String(projection.lag?.events_behind ?? '—')}</td>
                <td class="number">{projection.lag?.ms_behind ?? '—'}</td>
                <td>
                  {String(projection.built_by_version ?? '—')} / {String(projection.code_version ?? '—')}
                </td>
                <td>{projection.updated_at ?? '—'}</td>
                <td>
                  <ConfirmButton
                    label={`Rebuild ${projection.projection}`}
                    question={`Rebuild ${projection.projection} from the whole event log? It reads every event again; the current tables keep answering until the new generation has caught up.`}
                    confirmLabel="Rebuild"
                    disabled={rebuild.busy}
                    onConfirm={() =>
                      void rebuild.run(async () => {
                        setResult(undefined);
                        setResult(await admin<ProjectionRebuildRecord>('POST', `/projections/${encodeURIComponent(projection.projection)}/rebuild`));
                        list.reload();
                      })
                    }
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {rebuild.busy ? <p aria-live="polite">Rebuilding…</p> : null}
    </>
  );
}
