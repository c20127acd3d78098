import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The Standard Webhooks signature scheme (https://www.standardwebhooks.com, spec v1.0.0), which the
 * gateway's alert webhooks follow so that a receiver can check them with any of its libraries: the
 * headers `webhook-id` (the message's id, the same on every retry, for the receiver to drop duplicates),
 * `webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature` (`v1,` and the base64
 * HMAC-SHA256 of `<id>.<timestamp>.<body>`, keyed with the base64-decoded secret after its `whsec_`
 * prefix). Verified against the scheme's published test vectors (test/unit/alerts/standard-webhooks.test.ts).
 */
const SECRET_PREFIX = 'whsec_';
/** The scheme's recommended tolerance between the timestamp and the receiver's clock. */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export type SignedHeaders = {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
};

/** A new secret: 24 random bytes in base64 after the prefix, as the scheme's libraries make them. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64');
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** `v1,<base64 signature>` of one message at one time. */
export function signWebhook(secret: string, id: string, timestamp: Date, body: string): string {
  const seconds = Math.floor(timestamp.getTime() / 1000);
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${seconds}.${body}`).digest('base64')}`;
}

export function signedHeaders(secret: string, id: string, timestamp: Date, body: string): SignedHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signWebhook(secret, id, timestamp, body),
  };
}

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

/**
 * What a receiver does: checks the timestamp is within the tolerance of `now` and that one of the
 * space-separated `v1` signatures matches (the scheme allows several, for secret rotation). Throws
 * `WebhookVerificationError` saying what failed.
 */
export function verifyWebhook(secret: string, headers: Readonly<Record<string, string | undefined>>, body: string, now: Date = new Date()): void {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(seconds)) throw new WebhookVerificationError('webhook-timestamp is not a number of seconds');
  if (Math.abs(now.getTime() / 1000 - seconds) > TIMESTAMP_TOLERANCE_SECONDS) throw new WebhookVerificationError('webhook-timestamp is too old or too new');
  const expected = Buffer.from(signWebhook(secret, id, new Date(seconds * 1000), body).slice(3), 'base64');
  for (const signature of signatures.split(' ')) {
    const [version, value] = signature.split(',');
    if (version !== 'v1' || !value) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return;
  }
  throw new WebhookVerificationError('no matching signature');
}
