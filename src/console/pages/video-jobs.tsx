import type { PageRecord, VideoJobRecord } from '../../admin-records.js';
import { get } from '../api.js';
import { ErrorNotice, Loading, Pager, PAGE_SIZE, useCursor, useLoad } from '../ui.js';

/** The organization's video jobs, newest first: what each is doing, and what it was charged once billed. */
export function VideoJobsTab({ orgId }: { orgId: string }) {
  const cursor = useCursor();
  const list = useLoad(() => get<PageRecord<VideoJobRecord>>(`/organizations/${encodeURIComponent(orgId)}/videos`, { limit: PAGE_SIZE, after: cursor.after }), [orgId, cursor.after]);
  return (
    <section aria-labelledby="video-jobs">
      <h2 id="video-jobs">Video jobs</h2>
      <button type="button" onClick={list.reload}>
        Refresh
      </button>
      <ErrorNotice error={list.error} action="load the video jobs" />
      <Loading loaded={list} />
      {list.data && list.data.data.length === 0 && cursor.pageNumber === 1 ? <p>No video job: this organization has not asked for a video.</p> : null}
      {list.data && list.data.data.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Key</th>
              <th scope="col">Model</th>
              <th scope="col">Status</th>
              <th scope="col" class="number">Seconds</th>
              <th scope="col" class="number">Cost (USD)</th>
              <th scope="col">Error</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((job) => (
              <tr key={job.id}>
                <td>
                  <code>{job.id}</code>
                </td>
                <td>
                  <code>{job.key_id}</code>
                </td>
                <td>{job.model}</td>
                <td>{job.status === 'in_progress' ? `in progress (${job.progress} %)` : job.status}</td>
                <td class="number">{job.seconds}</td>
                <td class="number">{job.cost_usd ?? 'not yet billed'}</td>
                <td>{job.error ? `${job.error.code}: ${job.error.message}` : ''}</td>
                <td>{job.created_at}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager label="Video jobs" pageNumber={cursor.pageNumber} hasPrevious={cursor.pageNumber > 1} hasNext={list.data?.has_more ?? false} onPrevious={cursor.previous} onNext={() => cursor.next(list.data?.last_id ?? null)} />
    </section>
  );
}
