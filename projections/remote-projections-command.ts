import type { AdminApiClient } from '../src/admin-client/admin-api-client.js';
import type { ListRecord, ProjectionRebuildRecord, ProjectionStatusRecord } from '../src/admin-records.js';
import { projectionStatusFromRecord } from './projection-status-record.js';
import { formatStatuses } from './projection-status.js';
import { USAGE } from './projections-command.js';

/**
 * `npm run projections -- status | rebuild [name]` through the admin API of the gateway that holds the
 * embedded data directory (src/admin/projection-routes.ts), printing what the local command prints. `run` has no
 * remote form: that gateway already keeps every read model up to date (the embedded mode cannot run a
 * separate worker).
 */
export async function runRemoteProjectionsCommand(args: readonly string[], api: AdminApiClient, out: (line: string) => void, err: (line: string) => void): Promise<number> {
  const [command, ...rest] = args;
  const usage = () => {
    for (const line of USAGE) err(line);
    return 2;
  };
  switch (command) {
    case 'status': {
      if (rest.length > 0) return usage();
      const answer = await api.json<ListRecord<ProjectionStatusRecord>>('GET', '/projections');
      for (const line of formatStatuses(answer.data.map(projectionStatusFromRecord))) out(line);
      return 0;
    }
    case 'rebuild': {
      if (rest.length > 1) return usage();
      const known = [...new Set((await api.json<ListRecord<ProjectionStatusRecord>>('GET', '/projections')).data.map((status) => status.projection))];
      if (rest[0] && !known.includes(rest[0])) {
        err(`unknown projection ${rest[0]}; known: ${known.join(', ') || 'none'}`);
        return 1;
      }
      for (const name of rest[0] ? [rest[0]] : known) {
        out(`rebuilding ${name} in the gateway at ${api.url} into a fresh generation; the current one keeps serving reads`);
        const result = await api.json<ProjectionRebuildRecord>('POST', `/projections/${encodeURIComponent(name)}/rebuild`);
        const seconds = result.elapsed_ms / 1000;
        const rate = seconds > 0 ? Math.round(result.events_processed / seconds) : 0;
        out(
          `${name}: generation ${result.generation} now serves reads (${result.events_processed} events in ${seconds.toFixed(1)} s, ${rate}/s)` +
            (result.retired.length ? `; dropped generation ${result.retired.join(', ')}` : ''),
        );
      }
      return 0;
    }
    case 'run':
      if (rest.length > 0) return usage();
      err(`the gateway at ${api.url} holds the data directory and keeps the read models up to date itself; a separate worker needs DATABASE_URL`);
      return 1;
    default:
      return usage();
  }
}
