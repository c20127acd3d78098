import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../logger.js';

/** Wrong tokens an address may present within the window before it is refused for the rest of it. */
export const SIGN_IN_FAILURES_ALLOWED = 10;
export const SIGN_IN_WINDOW_MS = 60_000;
/** Addresses remembered at most: a flood from many addresses cannot grow the gateway's memory. */
const ADDRESSES_KEPT = 10_000;

/**
 * Failed sign-ins (a wrong admin token on the admin API or /metrics, a wrong token at the console's
 * sign-in) per client address: each is logged, and an address with `SIGN_IN_FAILURES_ALLOWED` failures in
 * the last minute is answered `429 rate_limit_exceeded` with `Retry-After` until the oldest of them is a
 * minute old, whatever it presents, so that guessing the token runs at ten tries a minute rather than at
 * the speed of the network. A right token clears the address's count.
 *
 * Per instance (N instances allow N times as many tries), and per TCP peer: behind a proxy every client
 * shares the proxy's address, so keep the admin API on a private network or give operators their own route.
 */
export class SignInThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly logger?: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws 429 when the address has used up its tries; call before the token is looked at. */
  check(address: string): void {
    const recent = this.recent(address);
    if (recent.length < SIGN_IN_FAILURES_ALLOWED) return;
    const retryAfterSeconds = Math.max(1, Math.ceil((recent[0]! + SIGN_IN_WINDOW_MS - this.now()) / 1_000));
    throw new GatewayError('rate_limit_exceeded', `too many failed sign-ins from this address; retry after ${retryAfterSeconds} s`, { retryAfterSeconds });
  }

  /** A wrong token from the address: counted and logged (never the token itself). */
  failed(address: string, where: string): void {
    const recent = this.recent(address);
    recent.push(this.now());
    this.failures.delete(address);
    this.failures.set(address, recent);
    if (this.failures.size > ADDRESSES_KEPT) this.failures.delete(this.failures.keys().next().value!);
    const throttled = recent.length >= SIGN_IN_FAILURES_ALLOWED;
    this.logger?.warn({ clientAddress: address, where, failuresInLastMinute: recent.length, throttled }, throttled ? 'failed sign-in; address throttled' : 'failed sign-in');
  }

  succeeded(address: string): void {
    this.failures.delete(address);
  }

  private recent(address: string): number[] {
    const since = this.now() - SIGN_IN_WINDOW_MS;
    const times = this.failures.get(address);
    if (!times) return [];
    const recent = times.filter((time) => time > since);
    if (recent.length === 0) this.failures.delete(address);
    return recent;
  }
}

/** The TCP peer's address (a proxy in front is not trusted to say otherwise). */
export function clientAddress(request: IncomingMessage): string {
  return request.socket.remoteAddress ?? 'unknown';
}
