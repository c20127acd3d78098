import { accessEventDefinitions } from '../src/access/access-event-catalogue.js';
import { NO_LIMITS, type BudgetAlertRules, type BudgetScope, type LimitPair } from '../src/access/access-events.js';
import { budgetAlerts, webhookBody, type ChargedScope } from '../src/alerts/budget-crossings.js';
import type { NewDelivery } from '../src/alerts/webhook-deliveries.js';
import type { EventOf } from '../src/eventstore/event-catalogue.js';
import { deterministicUuid } from '../src/ids/deterministic-uuid.js';
import { accountEventDefinitions } from '../src/ledger/account-event-catalogue.js';
import { periodsOf } from '../src/ledger/spend-periods.js';

/**
 * The budget alerts projection's fold of one batch (budget-alerts-projection.ts loads what the batch needs
 * and writes back what changed): the events in log order, in memory, on the tables' state as of the batch's
 * start. Each charge adds to the settled spend of its scopes in its reservation's day and month and to the
 * organization's settled total; an organization with alert rules then gets the alerts that charge raises
 * (src/alerts/budget-crossings.ts), and their deliveries when this is the first decision of the event.
 */
export const alertEventDefinitions = [...accountEventDefinitions, ...accessEventDefinitions] as const;
export type AlertEvent = EventOf<(typeof alertEventDefinitions)[number]>;

export interface AlertReservation {
  readonly reservation_id: string;
  readonly org_id: string;
  readonly key_id: string;
  readonly employee_id: string | null;
  readonly team_id: string | null;
  readonly day: string;
  readonly month: string;
}

export interface AlertOrganization {
  credits: bigint;
  settled: bigint;
  rules: BudgetAlertRules | null;
}

export interface RaisedAlert {
  readonly period: string | null;
  readonly level: bigint | null;
}

/** The tables' rows a batch reads, as of its start. */
export interface AlertTables {
  readonly organizations: Map<string, AlertOrganization>;
  readonly reservations: ReadonlyMap<string, AlertReservation>;
  /** Settled spend by `<scope>:<id>|<kind>:<period>`. */
  readonly spend: Map<string, bigint>;
  /** Limits by `<scope>:<id>`. */
  readonly limits: Map<string, LimitPair>;
  /** Raised alerts by organization, then by key. */
  readonly raised: Map<string, Map<string, RaisedAlert>>;
  /** The newest account-stream revision whose alerts were decided, by stream. */
  readonly decided: Map<string, bigint>;
}

export const scopeName = (scope: BudgetScope, id: string) => `${scope}:${id}`;
export const spendKey = (scope: string, period: string) => `${scope}|${period}`;

export class AlertFold {
  readonly organizations = new Set<string>();
  readonly limits = new Set<string>();
  readonly opened = new Map<string, AlertReservation>();
  readonly closed = new Set<string>();
  readonly spend = new Set<string>();
  /** The alert keys whose raised state changed, by organization: written as `tables.raised` ends up. */
  readonly raised = new Map<string, Set<string>>();
  readonly decided = new Set<string>();
  readonly deliveries: NewDelivery[] = [];

  constructor(private readonly tables: AlertTables) {}

  apply(event: AlertEvent): void {
    const at = event.metadata.occurredAt;
    // the organization of an account or organization stream, the key of a key stream
    const subject = event.streamId.slice(event.streamId.indexOf('-') + 1);
    switch (event.type) {
      case 'CreditsAdded': {
        const organization = this.organization(subject);
        organization.credits += BigInt(event.data.amount);
        // a top-up that brings the balance back to a low-balance level arms its alert again
        for (const [key, alert] of this.tables.raised.get(subject) ?? []) {
          if (alert.level !== null && alert.level <= organization.credits - organization.settled) this.unraise(subject, key);
        }
        return;
      }
      case 'FundsReserved': {
        const { reservationId, keyId, employeeId, teamId } = event.data;
        const { day, month } = periodsOf(at);
        this.opened.set(reservationId, { reservation_id: reservationId, org_id: subject, key_id: keyId, employee_id: employeeId, team_id: teamId, day, month });
        return;
      }
      case 'ReservationReleased':
      case 'ReservationExpired':
        this.close(event.data.reservationId);
        return;
      case 'ReservationSettled':
      case 'ReservationCutOff': {
        const reservation = this.close(event.data.reservationId);
        const cost = BigInt(event.data.cost);
        if (reservation && cost > 0n) this.charge(event, reservation, cost);
        return;
      }
      case 'OrganizationCreated':
        this.organization(subject);
        this.setLimits(scopeName('organization', subject), event.data.spendLimits);
        return;
      case 'OrganizationChanged':
        if (event.data.spendLimits) this.setLimits(scopeName('organization', subject), event.data.spendLimits);
        return;
      case 'TeamCreated':
        this.setLimits(scopeName('team', event.data.teamId), event.data.spendLimits);
        return;
      case 'EmployeeCreated':
        this.setLimits(scopeName('employee', event.data.employeeId), event.data.spendLimits);
        return;
      case 'BudgetAlertsChanged':
        this.organization(subject).rules = event.data;
        return;
      case 'KeyIssued':
        this.setLimits(scopeName('key', event.data.keyId), event.data.limits.overall);
        return;
      case 'KeyChanged':
        if (event.data.limits) this.setLimits(scopeName('key', subject), event.data.limits.overall);
        return;
      case 'AccessRulesChanged':
      case 'SpaceCreated':
      case 'AlertWebhookChanged':
      case 'KeyRevoked':
        return;
    }
  }

  private charge(event: AlertEvent, reservation: AlertReservation, cost: bigint): void {
    const orgId = reservation.org_id;
    const organization = this.organization(orgId);
    organization.settled += cost;
    const owners: Array<[BudgetScope, string | null]> = [
      ['organization', orgId],
      ['key', reservation.key_id],
      ['team', reservation.team_id],
      ['employee', reservation.employee_id],
    ];
    const scopes: ChargedScope[] = [];
    for (const [scope, id] of owners) {
      if (id === null) continue;
      const name = scopeName(scope, id);
      const spent = { day: this.addSpend(name, `day:${reservation.day}`, cost), month: this.addSpend(name, `month:${reservation.month}`, cost) };
      scopes.push({ scope, id, limits: this.tables.limits.get(name) ?? NO_LIMITS, spent });
    }
    if (!organization.rules) return;
    const raised = this.tables.raised.get(orgId) ?? new Map<string, RaisedAlert>();
    this.tables.raised.set(orgId, raised);
    const charge = { orgId, requestId: reservation.reservation_id, periods: { day: reservation.day, month: reservation.month }, scopes, balance: organization.credits - organization.settled };
    const alerts = budgetAlerts(organization.rules, charge, new Set(raised.keys()));
    const first = this.firstDecision(event.streamId, event.revision);
    for (const alert of alerts) {
      raised.set(alert.key, { period: alert.period, level: alert.level });
      this.touchRaised(orgId, alert.key);
      if (!first) continue;
      this.deliveries.push({
        // the same event and alert give the same id on every replay: the receiver's key to drop duplicates
        deliveryId: deterministicUuid(`budget-alert\0${event.id}\0${alert.key}`),
        orgId,
        eventType: alert.type,
        body: webhookBody(alert.type, event.metadata.occurredAt, alert.data),
        createdAt: event.metadata.occurredAt,
      });
    }
  }

  /** Whether no generation decided the alerts of this event before (see migration 0104). */
  private firstDecision(streamId: string, revision: bigint): boolean {
    if (revision <= (this.tables.decided.get(streamId) ?? -1n)) return false;
    this.tables.decided.set(streamId, revision);
    this.decided.add(streamId);
    return true;
  }

  private organization(orgId: string): AlertOrganization {
    let organization = this.tables.organizations.get(orgId);
    if (!organization) this.tables.organizations.set(orgId, (organization = { credits: 0n, settled: 0n, rules: null }));
    this.organizations.add(orgId);
    return organization;
  }

  private setLimits(scope: string, limits: LimitPair): void {
    this.tables.limits.set(scope, limits);
    this.limits.add(scope);
  }

  private addSpend(scope: string, period: string, cost: bigint): bigint {
    const key = spendKey(scope, period);
    const spent = (this.tables.spend.get(key) ?? 0n) + cost;
    this.tables.spend.set(key, spent);
    this.spend.add(key);
    return spent;
  }

  private close(reservationId: string): AlertReservation | undefined {
    const opened = this.opened.get(reservationId);
    if (opened) {
      this.opened.delete(reservationId);
      return opened;
    }
    const earlier = this.tables.reservations.get(reservationId);
    if (earlier) this.closed.add(reservationId);
    return earlier;
  }

  private unraise(orgId: string, key: string): void {
    this.tables.raised.get(orgId)?.delete(key);
    this.touchRaised(orgId, key);
  }

  private touchRaised(orgId: string, key: string): void {
    let keys = this.raised.get(orgId);
    if (!keys) this.raised.set(orgId, (keys = new Set()));
    keys.add(key);
  }
}
