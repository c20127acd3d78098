import type { Clock } from '../../../src/clock.js';
import { parseUsd } from '../../../src/billing/money.js';
import type { GatewayHarness } from '../../support/gateway-harness.js';
import { postText, type GatewayAnswer } from '../../support/text-format-client.js';

/**
 * What the money-rule suites share. Every expected amount in them is worked out by hand from the test
 * catalog (test/support/catalog.test.yaml) in nanodollars (n$, 1 USD = 10^9 n$):
 *
 * openai/gpt-4o-mini: input $0.15 / M tokens = 150 n$ a token; output $0.60 / M = 600 n$ a token;
 * response ceiling 16,384 tokens.
 *
 * `chat(cap)` is `{model, max_tokens: cap, messages: [{role: "user", content: "hello"}]}`. Its input
 * estimate: the strings counted are "user" and "hello", one o200k token each = 2, raised by the tokenizer
 * margin of a quarter, rounded up = ceil(2.5) = 3; plus 4 tokens of structure per object (the body and the
 * message) = 8; in all 11 tokens. So its reserve is 11 × 150 + cap × 600 = 1,650 + 600 × cap n$, and its
 * rate-limit admission 11 + cap tokens.
 *
 * The fake provider's default usage is 12 input and 7 output tokens: 12 × 150 + 7 × 600 = 6,000 n$.
 */
export const MODEL = 'openai/gpt-4o-mini';
export const DEFAULT_COST = 6_000n;

export function chat(cap: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: MODEL, max_tokens: cap, messages: [{ role: 'user', content: 'hello' }], ...extra };
}

export function postChat(harness: GatewayHarness, secret: string, body: Record<string, unknown>, headers: Record<string, string> = {}, url = harness.gateway.url): Promise<GatewayAnswer> {
  return postText(url, 'chat', secret, body, headers);
}

/** A clock the test moves by hand: the gateway's notion of now (periods, deadlines, rate windows). */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: string) {
    this.current = Date.parse(start);
  }
  now(): Date {
    return new Date(this.current);
  }
  set(instant: string): void {
    this.current = Date.parse(instant);
  }
  advance(milliseconds: number): void {
    this.current += milliseconds;
  }
}

/** A promise the test resolves by hand, to hold a fake provider's answer. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** The organization's reserved amount as the admin API shows it, in n$. */
export async function reservedOf(harness: GatewayHarness, orgId: string): Promise<bigint> {
  return parseUsd((await harness.admin.ok('GET', `/organizations/${orgId}`)).reserved_usd);
}

/** Waits until the provider has received `count` requests in all (the request is in flight, held there). */
export async function providerReceived(harness: GatewayHarness, count: number): Promise<void> {
  const giveUp = Date.now() + 10_000;
  while (harness.openai.requests.length < count) {
    if (Date.now() > giveUp) throw new Error(`the provider received ${harness.openai.requests.length} requests, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
