import type { GlobalPage } from './postgres-reads.js';
import { comparePostgresPositions, decodePostgresPosition, type PostgresPosition } from './postgres-position.js';
import type { SubscriptionSource } from './postgres-subscription.js';

/**
 * One read of the global log for the subscriptions of a store that ask for the same page at the same time.
 *
 * A gateway follows the log with several subscriptions (the ledger's, the budget alerts', the access and
 * video read models', the access directory, the price book). Each read its own pages on its own schedule, so
 * Postgres walked and sent the same rows six times: about a third of its statement time a request (55–62 of
 * 173–188 µs in the benchmark; 17–19 µs shared, docs/performance-log.md).
 * Subscriptions that wait between reads (`minReadIntervalMs`) now wake on shared ticks, at whole multiples
 * of their interval (`at`), so that those caught up at the same position ask for the same page in the same
 * turn of the event loop. The requests of one turn are gathered and read together:
 * - one request: its own query, as before (a filtered reader still gets only its matches and the last row
 *   walked);
 * - several from one position with the same filter and limit: that query, shared;
 * - otherwise: the unfiltered page from the earliest position at the largest limit, cut here to each
 *   request's position, limit and filter, which is what each request's own query would have returned from
 *   the same snapshot. When that page is full (the earliest reader is catching up), the requests from
 *   further on are read again from where they are, together: a page that stops short of the horizon does
 *   not say what lies after it.
 * Readers that share a page end at the same position, so that they keep sharing on the next tick: a
 * reader that reads more often (the access directory) joins the others' page whenever their ticks meet.
 *
 * Every query starts after every request it answers was made (the gathering waits for the end of the
 * turn), so a reader that was woken by an append sees it exactly as if it had read alone: no page is
 * served from before the request.
 */

/** One query for a page of the log (readGlobalPage on the store's database). */
export type ReadPage = SubscriptionSource['readPage'];

interface PageRequest {
  readonly after: PostgresPosition;
  readonly limit: number;
  readonly prefixes: readonly string[] | undefined;
  resolve(page: GlobalPage): void;
  reject(error: unknown): void;
}

const filterKey = (prefixes: readonly string[] | undefined) => (prefixes && prefixes.length > 0 ? [...prefixes].sort().join('\u0000') : '');

export class SharedPageReads {
  private pending: PageRequest[] = [];
  /** The callers waiting for each tick (epoch ms), woken by one timer. */
  private readonly ticks = new Map<number, (() => void)[]>();

  constructor(private readonly read: ReadPage) {}

  readPage(after: PostgresPosition, limit: number, prefixes: readonly string[] | undefined): Promise<GlobalPage> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.readGathered());
      this.pending.push({ after, limit, prefixes, resolve, reject });
    });
  }

  /**
   * Resolves at `time` (epoch ms), on one timer for every caller of the same time: their reads then come in
   * the same turn and share a page.
   */
  at(time: number): Promise<void> {
    return new Promise((resolve) => {
      const waiting = this.ticks.get(time);
      if (waiting) {
        waiting.push(resolve);
        return;
      }
      this.ticks.set(time, [resolve]);
      const timer = setTimeout(() => {
        const due = this.ticks.get(time) ?? [];
        this.ticks.delete(time);
        for (const wake of due) wake();
      }, Math.max(0, time - Date.now()));
      timer.unref();
    });
  }

  private readGathered(): void {
    const requests = this.pending;
    this.pending = [];
    void this.readTogether(requests.sort((a, b) => comparePostgresPositions(a.after, b.after)));
  }

  /** `requests` in the order of their positions, earliest first. */
  private async readTogether(requests: readonly PageRequest[]): Promise<void> {
    const first = requests[0]!;
    const alike = requests.every(
      (request) => comparePostgresPositions(request.after, first.after) === 0 && request.limit === first.limit && filterKey(request.prefixes) === filterKey(first.prefixes),
    );
    let page: GlobalPage;
    const limit = Math.max(...requests.map((request) => request.limit));
    try {
      page = await this.read(first.after, limit, alike ? first.prefixes : undefined);
    } catch (error) {
      for (const request of requests) request.reject(error);
      return;
    }
    if (alike) {
      for (const request of requests) request.resolve(page);
      return;
    }
    const reachedHorizon = page.scanned < limit;
    const later: PageRequest[] = [];
    for (const request of requests) {
      if (reachedHorizon || comparePostgresPositions(request.after, first.after) === 0) request.resolve(cutPage(page, request.after, request.limit, request.prefixes));
      else later.push(request);
    }
    if (later.length > 0) await this.readTogether(later);
  }
}

/**
 * What a query from `after` of `limit` rows filtered by `prefixes` would have returned, from an unfiltered
 * page of at least that many rows from `after` or an earlier position (or one that reached the horizon).
 */
export function cutPage(page: GlobalPage, after: PostgresPosition, limit: number, prefixes: readonly string[] | undefined): GlobalPage {
  let start = 0;
  while (start < page.events.length && comparePostgresPositions(decodePostgresPosition(page.events[start]!.position), after) <= 0) start++;
  const rows = start > 0 || page.events.length > limit ? page.events.slice(start, start + limit) : page.events;
  const last = rows.at(-1);
  const filtered = prefixes !== undefined && prefixes.length > 0;
  return {
    events: filtered ? rows.filter((event) => prefixes.some((prefix) => event.streamId.startsWith(prefix))) : rows,
    scanned: rows.length,
    lastScanned: last ? decodePostgresPosition(last.position) : undefined,
    horizon: page.horizon,
    pendingBeyondHorizon: page.pendingBeyondHorizon,
  };
}
