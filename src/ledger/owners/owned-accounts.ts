import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from '../../logger.js';
import type { AccountCommand } from '../account-decider.js';
import type { AccountService } from '../account-service.js';
import type { AccountOutcome, Accounts, EarlyOutcome } from '../accounts.js';
import { AccountLeases } from './account-leases.js';
import { AccountLinkClient, AccountLinkError } from './account-link-client.js';
import { AccountLinkServer } from './account-link-server.js';
import { isForwarded, type ForwardedCommand } from './account-wire.js';

/**
 * Where this instance sends an account's commands: `self`, it holds the lease; `peer`, another instance
 * does (asked again after `until`); `here`, the owner cannot be reached or the lease table read, so the
 * commands run in this process until `until`, as they would without owners.
 */
type Route = { readonly kind: 'self' } | { readonly kind: 'peer'; readonly client: AccountLinkClient; readonly until: number } | { readonly kind: 'here'; readonly until: number };

/**
 * What became of a forwardable command (gateway_account_commands_total): decided here as the account's
 * owner, `forwarded` to the owner and answered, run `here` without an owner (unreachable, the lease table
 * unreadable, the lease moving), or run here as the owner `for_another` instance.
 */
export type AccountCommandRoute = 'owner' | 'forwarded' | 'here' | 'for_another';

/** How long commands run here after the owner could not be reached, before the owner is looked up again. */
const HERE_AFTER_LINK_LOSS_MS = 1_000;

export interface OwnedAccountsOptions {
  /** This process's account service: it runs the accounts this instance owns, and any it cannot route. */
  readonly local: AccountService;
  readonly db: Kysely<object>;
  /** Interface and port the link listens on (port 0: any free port). */
  readonly host: string;
  readonly port: number;
  /** The host name or address the other instances reach this one at. */
  readonly advertisedHost: string;
  readonly secret: string;
  /** How long a lease lasts without renewal (default 10 s, INSTANCE_LEASE_MS). */
  readonly leaseMs?: number;
  /** This instance's id (src/ledger/instances), so that its leases and its heartbeat name the same process. */
  readonly instanceId?: string;
  readonly logger?: Logger;
  /** Told the route of every forwardable command (the gateway's metrics). */
  readonly observe?: (route: AccountCommandRoute) => void;
}

/**
 * An owner per account across gateway instances. Without it, two instances serving one busy organization
 * each decide on the account, read and apply every event the other appends, and take turns on the
 * stream's write lock. With it, the first instance to serve an organization takes its lease (Postgres,
 * account-leases.ts) and decides all its commands; the others forward theirs over the account link
 * (one TCP connection between two instances, commands batched per turn of the event loop).
 *
 * The lease only routes; it guards nothing. The owner still appends with the stream's expected revision,
 * so an instance that runs a command itself (the owner unreachable, the link dropped mid-answer, a lease
 * held by a paused process) stays exactly as correct as without owners, and merely pays the contention.
 */
export class OwnedAccounts implements Accounts {
  private readonly routes = new Map<string, Route>();
  private readonly resolving = new Map<string, Promise<Route>>();
  private readonly clients = new Map<string, AccountLinkClient>();
  private readonly renewTimer: NodeJS.Timeout;
  private lastRenewed = Date.now();
  /** Set by close: commands then run here, and forwarded ones are turned away, so no lease is taken again. */
  private closing = false;

  private constructor(
    private readonly local: AccountService,
    private readonly leases: AccountLeases,
    private readonly server: AccountLinkServer,
    private readonly secret: string,
    private readonly logger: Logger | undefined,
    private readonly observe: (route: AccountCommandRoute) => void,
  ) {
    this.renewTimer = setInterval(() => void this.renew(), Math.max(100, Math.floor(leases.ttlMs / 3)));
    this.renewTimer.unref();
  }

  static async start(options: OwnedAccountsOptions): Promise<OwnedAccounts> {
    let owned: OwnedAccounts | undefined;
    const server = await AccountLinkServer.listen({
      host: options.host,
      port: options.port,
      secret: options.secret,
      handler: (orgId, command, causedBy) => owned!.runForwarded(orgId, command, causedBy),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    const leases = new AccountLeases(options.db, options.instanceId ?? randomUUID(), `${options.advertisedHost}:${server.port}`, options.leaseMs ?? 10_000);
    owned = new OwnedAccounts(options.local, leases, server, options.secret, options.logger, options.observe ?? (() => undefined));
    options.logger?.info({ address: leases.address, instanceId: leases.instanceId }, 'account link listening');
    return owned;
  }

  /** The address the other instances reach this one at (host:port), and this process's name in the leases. */
  get address(): string {
    return this.leases.address;
  }

  get instanceId(): string {
    return this.leases.instanceId;
  }

  async execute(orgId: string, command: AccountCommand, causedBy: string): Promise<AccountOutcome> {
    if (!isForwarded(command)) return this.local.execute(orgId, command, causedBy);
    if (this.closing) return this.runHere(orgId, command, causedBy);
    // Twice: a `not_owner` answer means the lease moved; the second look finds where.
    for (let attempt = 0; attempt < 2; attempt++) {
      const route = this.currentRoute(orgId) ?? (await this.resolve(orgId));
      if (route.kind === 'self') {
        this.observe('owner');
        return this.local.execute(orgId, command, causedBy);
      }
      if (route.kind === 'here') break;
      try {
        const answer = await route.client.call(orgId, command, causedBy);
        if (answer !== 'not_owner') {
          this.observe('forwarded');
          return answer;
        }
        if (this.routes.get(orgId) === route) this.routes.delete(orgId);
      } catch (error) {
        if (!(error instanceof AccountLinkError)) throw error;
        this.logger?.debug({ err: error, orgId }, 'account owner unreachable; running the command here');
        if (this.routes.get(orgId) === route) this.routes.set(orgId, { kind: 'here', until: Date.now() + HERE_AFTER_LINK_LOSS_MS });
        break;
      }
    }
    return this.runHere(orgId, command, causedBy);
  }

  /**
   * Early only where this instance owns the account (or no one does): a command sent to the owner over
   * the link answers once the owner has committed it, so its early outcome is the durable one.
   */
  async executeEarly(orgId: string, command: AccountCommand, causedBy: string): Promise<EarlyOutcome> {
    const route = isForwarded(command) && !this.closing ? this.currentRoute(orgId) : undefined;
    if (route?.kind === 'self') {
      this.observe('owner');
      return this.local.executeEarly(orgId, command, causedBy);
    }
    const outcome = await this.execute(orgId, command, causedBy);
    return { decided: outcome, durable: Promise.resolve(outcome) };
  }

  private runHere(orgId: string, command: ForwardedCommand, causedBy: string): Promise<AccountOutcome> {
    this.observe('here');
    return this.local.execute(orgId, command, causedBy);
  }

  balance(orgId: string): Promise<{ balance: bigint; reserved: bigint; available: bigint }> {
    return this.local.balance(orgId);
  }

  saveSnapshot(orgId: string): Promise<void> {
    return this.local.saveSnapshot(orgId);
  }

  evictAll(): void {
    this.local.evictAll();
  }

  /** Gives up the leases (the others take the accounts over at once), answers what it is running, closes the link. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.renewTimer);
    this.routes.clear();
    await this.leases.releaseAll().catch((error) => this.logger?.warn({ err: error }, 'could not release the account leases; they lapse on their own'));
    await this.server.close();
    for (const client of this.clients.values()) client.close();
  }

  /** A command another instance sent, run only while this instance holds the account's lease. */
  private async runForwarded(orgId: string, command: ForwardedCommand, causedBy: string): Promise<AccountOutcome | 'not_owner'> {
    if (this.closing) return 'not_owner';
    const route = this.currentRoute(orgId) ?? (await this.resolve(orgId));
    if (route.kind !== 'self') return 'not_owner';
    this.observe('for_another');
    return this.local.execute(orgId, command, causedBy);
  }

  private currentRoute(orgId: string): Route | undefined {
    const route = this.routes.get(orgId);
    if (route && route.kind !== 'self' && Date.now() > route.until) {
      this.routes.delete(orgId);
      return undefined;
    }
    return route;
  }

  /** Claims the account's lease, or learns who holds it; concurrent requests for one account share the look-up. */
  private resolve(orgId: string): Promise<Route> {
    let pending = this.resolving.get(orgId);
    if (!pending) {
      pending = this.claim(orgId).finally(() => this.resolving.delete(orgId));
      this.resolving.set(orgId, pending);
    }
    return pending;
  }

  private async claim(orgId: string): Promise<Route> {
    let route: Route;
    try {
      const owner = await this.leases.claim(orgId);
      if (owner.self) route = { kind: 'self' };
      else if (owner.address === '') route = { kind: 'here', until: Date.now() };
      else route = { kind: 'peer', client: this.clientFor(owner.address), until: Date.now() + owner.validForMs };
    } catch (error) {
      this.logger?.warn({ err: error, orgId }, 'could not read the account lease; running the command here');
      route = { kind: 'here', until: Date.now() + HERE_AFTER_LINK_LOSS_MS };
    }
    this.routes.set(orgId, route);
    return route;
  }

  private clientFor(address: string): AccountLinkClient {
    let client = this.clients.get(address);
    if (!client) {
      client = new AccountLinkClient(address, this.secret);
      this.clients.set(address, client);
    }
    return client;
  }

  /**
   * Extends this instance's leases. An account whose lease was lost (this process paused past it, and
   * another instance claimed it) is no longer routed here; one that could not be renewed for a whole
   * lease is given up, since another instance may have claimed it meanwhile.
   */
  private async renew(): Promise<void> {
    const started = Date.now();
    try {
      const held = await this.leases.renew();
      this.lastRenewed = started;
      for (const [orgId, route] of this.routes) if (route.kind === 'self' && !held.has(orgId)) this.routes.delete(orgId);
    } catch (error) {
      this.logger?.warn({ err: error }, 'could not renew the account leases');
      if (Date.now() - this.lastRenewed > this.leases.ttlMs) for (const [orgId, route] of this.routes) if (route.kind === 'self') this.routes.delete(orgId);
    }
  }
}
