import { GatewayError } from '../../errors/gateway-error.js';
import type { ErrorCode } from '../../errors/error-catalogue.js';
import type { AccountCommand, ReserveLimits } from '../account-decider.js';
import type { AccountOutcome } from '../accounts.js';

/**
 * The account commands and outcomes that travel between instances over the account link
 * (account-link-client.ts, account-link-server.ts), as JSON: amounts and revisions as decimal strings
 * (bigint does not survive JSON), times as ISO strings, a refusal as its catalogue code and message.
 * Every command travels but a credit: the others decide nothing when they run twice (a reserve of an
 * open reservation, a close of a closed one, a fence already passed), so a command whose answer was lost
 * with the connection can run again where it was issued; a credit without an Idempotency-Key would be
 * added twice, so it always runs where it is issued.
 */
export type ForwardedCommand = Exclude<AccountCommand, { type: 'AddCredits' }>;

export function isForwarded(command: AccountCommand): command is ForwardedCommand {
  return command.type !== 'AddCredits';
}

type Wire<T> = T extends bigint ? string : T extends Date ? string : T extends object ? { [K in keyof T]: Wire<T[K]> } : T;

export type WireCommand = Wire<ForwardedCommand>;
export type WireOutcome = {
  readonly decision: { events: unknown[] } | { rejection: WireRejection } | { stale: Array<{ stream: string; revision: string }> };
  readonly balance: string;
  readonly reserved: string;
};
export interface WireRejection {
  readonly code: ErrorCode;
  readonly message: string;
  readonly param?: string;
  readonly retryAfterSeconds?: number;
}

export function encodeCommand(command: ForwardedCommand): WireCommand {
  switch (command.type) {
    case 'ReserveFunds':
      return {
        ...command,
        amount: String(command.amount),
        deadline: command.deadline.toISOString(),
        limits: mapLimits(command.limits, String),
        accessRevisions: mapValues(command.accessRevisions, String),
      };
    case 'SettleReservation':
    case 'CutOffReservation': {
      const { piiMaskingFee, costByKind, ...rest } = command;
      return {
        ...rest,
        cost: String(command.cost),
        ...(piiMaskingFee === undefined ? {} : { piiMaskingFee: String(piiMaskingFee) }),
        ...(costByKind === undefined ? {} : { costByKind: mapValues(costByKind, String) }),
      };
    }
    case 'FenceAccessRules':
      return { ...command, revision: String(command.revision) };
    case 'ReleaseReservation':
    case 'ExpireReservation':
      return command;
  }
}

export function decodeCommand(wire: WireCommand): ForwardedCommand {
  switch (wire.type) {
    case 'ReserveFunds':
      return {
        ...wire,
        amount: BigInt(wire.amount),
        deadline: new Date(wire.deadline),
        limits: mapLimits(wire.limits, BigInt),
        accessRevisions: mapValues(wire.accessRevisions, BigInt),
      };
    case 'SettleReservation':
    case 'CutOffReservation': {
      const { piiMaskingFee, costByKind, ...rest } = wire;
      return {
        ...rest,
        cost: BigInt(wire.cost),
        ...(piiMaskingFee === undefined ? {} : { piiMaskingFee: BigInt(piiMaskingFee) }),
        ...(costByKind === undefined ? {} : { costByKind: mapValues(costByKind, BigInt) }),
      };
    }
    case 'FenceAccessRules':
      return { ...wire, revision: BigInt(wire.revision) };
    case 'ReleaseReservation':
    case 'ExpireReservation':
      return wire;
  }
}

export function encodeOutcome(outcome: AccountOutcome): WireOutcome {
  const { decision } = outcome;
  const balance = String(outcome.balance);
  const reserved = String(outcome.reserved);
  if ('events' in decision) return { decision, balance, reserved };
  if ('stale' in decision) return { decision: { stale: decision.stale.map(({ stream, revision }) => ({ stream, revision: String(revision) })) }, balance, reserved };
  return { decision: { rejection: encodeError(decision.rejection) }, balance, reserved };
}

export function decodeOutcome(wire: WireOutcome): AccountOutcome {
  const { decision } = wire;
  const balance = BigInt(wire.balance);
  const reserved = BigInt(wire.reserved);
  if ('events' in decision) return { decision: decision as AccountOutcome['decision'], balance, reserved };
  if ('stale' in decision) return { decision: { stale: decision.stale.map(({ stream, revision }) => ({ stream, revision: BigInt(revision) })) }, balance, reserved };
  return { decision: { rejection: decodeError(decision.rejection) }, balance, reserved };
}

export function encodeError(error: GatewayError): WireRejection {
  return {
    code: error.code,
    message: error.message,
    ...(error.param !== undefined ? { param: error.param } : {}),
    ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
  };
}

export function decodeError(wire: WireRejection): GatewayError {
  return new GatewayError(wire.code, wire.message, {
    ...(wire.param !== undefined ? { param: wire.param } : {}),
    ...(wire.retryAfterSeconds !== undefined ? { retryAfterSeconds: wire.retryAfterSeconds } : {}),
  });
}

function mapValues<A, B>(record: Readonly<Record<string, A>>, map: (value: A) => B): Record<string, B> {
  const mapped: Record<string, B> = {};
  for (const name in record) mapped[name] = map(record[name]!);
  return mapped;
}

type Limits<T> = { -readonly [K in keyof ReserveLimits]?: { daily?: T; monthly?: T } };

function mapLimits<A, B>(limits: Limits<A>, map: (value: A) => B): Limits<B> {
  const mapped: Limits<B> = {};
  for (const scope in limits) {
    const limit = limits[scope as keyof ReserveLimits];
    if (!limit) continue;
    const each: { daily?: B; monthly?: B } = {};
    if (limit.daily !== undefined) each.daily = map(limit.daily);
    if (limit.monthly !== undefined) each.monthly = map(limit.monthly);
    mapped[scope as keyof ReserveLimits] = each;
  }
  return mapped;
}
