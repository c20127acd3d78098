import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

/**
 * The console's session: after a sign-in with the admin token, the browser keeps a signed, expiring value in
 * an HTTP-only cookie instead of the token. It is stateless (an HMAC keyed by the admin token), so every
 * instance behind a balancer accepts it, and changing ADMIN_TOKEN ends every session at once.
 *
 * The CSRF token is derived from the session (HMAC of its nonce): the page reads it from
 * `GET /console/session`, a same-origin call another site cannot read, and sends it in `X-Console-CSRF`
 * with every state-changing call. A cross-site form can carry the cookie but never that header.
 */
export const SESSION_COOKIE = 'gw_console';
export const CSRF_HEADER = 'x-console-csrf';
/** A working day; after it the operator signs in again. */
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;

export interface ConsoleSession {
  readonly expiresAt: Date;
  readonly csrfToken: string;
}

const sessionKey = (adminToken: string) => createHash('sha256').update(`gateway-console-session\0${adminToken}`).digest();
const mac = (key: Buffer, purpose: string, value: string) => createHmac('sha256', key).update(`${purpose}\0${value}`).digest('base64url');

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Compares the presented admin token with the configured one through their digests (no length or timing leak). */
export function isAdminToken(presented: string, adminToken: string | undefined): boolean {
  if (!adminToken || !presented) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(adminToken));
}

/** A new session value for the cookie: `<expiry ms>.<nonce>.<signature>`. */
export function newSessionValue(adminToken: string, now: Date): string {
  const payload = `${now.getTime() + SESSION_TTL_MS}.${randomBytes(18).toString('base64url')}`;
  return `${payload}.${mac(sessionKey(adminToken), 'session', payload)}`;
}

/** The session a cookie value stands for, or undefined when it is forged, altered, expired or from another token. */
export function readSession(value: string | undefined, adminToken: string | undefined, now: Date): ConsoleSession | undefined {
  if (!value || !adminToken) return undefined;
  const parts = value.split('.');
  if (parts.length !== 3) return undefined;
  const [expiry, nonce, signature] = parts as [string, string, string];
  const key = sessionKey(adminToken);
  if (!sameText(signature, mac(key, 'session', `${expiry}.${nonce}`))) return undefined;
  const expiresAt = Number(expiry);
  if (!Number.isSafeInteger(expiresAt) || expiresAt <= now.getTime()) return undefined;
  return { expiresAt: new Date(expiresAt), csrfToken: mac(key, 'csrf', nonce) };
}

/** The value of one cookie of the request (express without cookie-parser). */
export function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.get('cookie') ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}

/**
 * True when the request says it came over https: to the gateway itself, or to a proxy in front of it that
 * sets `X-Forwarded-Proto`. Trusting the header only ever adds `Secure` to the cookie, never removes a check.
 */
export function cameOverHttps(request: Request): boolean {
  const forwarded = request.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return (request.socket as { encrypted?: boolean }).encrypted === true || forwarded === 'https';
}

export function sessionCookie(request: Request, value: string, maxAgeSeconds: number): string {
  const secure = cameOverHttps(request) ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

/**
 * The `Origin` of a state-changing call must be the console's own: the host the request was sent to (or the
 * one a proxy names in `X-Forwarded-Host`). A missing Origin fails too: browsers send it on every POST, PATCH
 * and DELETE made by fetch, so only a non-browser client lacks it, and such a client uses the bearer token.
 */
export function isSameOrigin(request: Request): boolean {
  const origin = request.get('origin');
  if (!origin || origin === 'null') return false;
  let host: string;
  try {
    host = new URL(origin).host.toLowerCase();
  } catch {
    return false;
  }
  const own = (request.get('x-forwarded-host')?.split(',')[0] ?? request.get('host') ?? '').trim().toLowerCase();
  return own !== '' && host === own;
}

/** A session and the proof that a state-changing call comes from the console's own page. */
export function passesCsrfCheck(request: Request, session: ConsoleSession): boolean {
  return isSameOrigin(request) && sameText(request.get(CSRF_HEADER) ?? '', session.csrfToken);
}
