import { sql, type Kysely } from 'kysely';
import type { Logger } from '../../logger.js';

/** How long an instance that stops renewing its heartbeat still counts as alive (INSTANCE_LEASE_MS). */
export const DEFAULT_INSTANCE_LEASE_MS = 10_000;
/** Dead instances are remembered this long, so that what they held is still looked for after a lagging read model catches up. */
const REMEMBER_DEAD_MS = 60 * 60 * 1000;

/**
 * This gateway instance's heartbeat in Postgres (table `gateway_instances`, migration 0104), and what it
 * knows of the others'. Every instance renews its row every third of its lease; a row past its expiry is
 * an instance that died, and the living close the reservations it held (orphaned-reservations.ts).
 *
 * A paused instance (SIGSTOP, a long GC, a VM frozen) is alive but silent: while the pause is shorter than
 * the lease its reservations are untouched. One paused for longer is taken for dead; when it wakes up its
 * next heartbeat says so in the log, and the requests it then finishes find their reservations closed and
 * are charged nothing (the account closes a reservation once): the operator's loss, never the client's.
 */
export class GatewayInstances {
  private readonly timer: NodeJS.Timeout;
  private stopped = false;

  private constructor(
    private readonly db: Kysely<object>,
    readonly instanceId: string,
    readonly leaseMs: number,
    private readonly logger: Logger | undefined,
  ) {
    this.timer = setInterval(() => void this.beat().catch((error) => this.logger?.warn({ err: error }, 'could not renew this instance\'s heartbeat')), Math.max(100, Math.floor(leaseMs / 3)));
    this.timer.unref();
  }

  /** Registers the instance (its first heartbeat) and keeps renewing it until `stop`. */
  static async start(db: Kysely<object>, instanceId: string, leaseMs: number, logger?: Logger): Promise<GatewayInstances> {
    const instances = new GatewayInstances(db, instanceId, leaseMs, logger);
    try {
      await instances.beat();
    } catch (error) {
      instances.stop().catch(() => undefined);
      throw error;
    }
    return instances;
  }

  /** Renews the heartbeat; says so in the log when it had lapsed (the others may have closed what this instance held). */
  async beat(): Promise<void> {
    if (this.stopped) return;
    const { rows } = await sql<{ lapsed_ms: number | null }>`
      with previous as (select expires_at from gateway_instances where instance_id = ${this.instanceId})
      insert into gateway_instances as instances (instance_id, started_at, expires_at)
      values (${this.instanceId}, now(), now() + ${this.leaseMs} * interval '1 millisecond')
      on conflict (instance_id) do update set expires_at = excluded.expires_at
      returning (select floor(extract(epoch from now() - expires_at) * 1000)::float8 from previous where expires_at < now()) as lapsed_ms`.execute(this.db);
    const lapsedMs = rows[0]?.lapsed_ms;
    if (lapsedMs !== null && lapsedMs !== undefined) {
      this.logger?.warn(
        { instanceId: this.instanceId, lapsedMs },
        'this instance\'s heartbeat had lapsed (paused or cut off from the database for longer than INSTANCE_LEASE_MS): the other instances may have closed the reservations it held, and its requests still running are charged nothing',
      );
    }
  }

  /** The instances whose heartbeat has lapsed within the last hour; older ones are forgotten. */
  async lapsed(): Promise<string[]> {
    await sql`delete from gateway_instances where expires_at < now() - ${REMEMBER_DEAD_MS} * interval '1 millisecond'`.execute(this.db);
    const { rows } = await sql<{ instance_id: string }>`
      select instance_id from gateway_instances where expires_at < now() and instance_id <> ${this.instanceId}`.execute(this.db);
    return rows.map((row) => row.instance_id);
  }

  /**
   * Every other instance is dead now. Only true where one process alone may run: the embedded mode, whose
   * data directory lock this process holds, so what an earlier process held is closed at once on restart.
   */
  async othersAreGone(): Promise<void> {
    await sql`update gateway_instances set expires_at = now() - interval '1 millisecond'
      where instance_id <> ${this.instanceId} and expires_at >= now()`.execute(this.db);
  }

  /** Stops the heartbeat and marks the instance gone, so that the others close at once anything it still held. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await sql`update gateway_instances set expires_at = now() - interval '1 millisecond' where instance_id = ${this.instanceId}`.execute(this.db);
  }
}
