import { expect } from 'chai';
import { isAdminToken, newSessionValue, readSession, SESSION_TTL_MS } from '../../../src/admin/console-session.js';

describe('console session values', () => {
  const token = 'admin-token-0123456789abcdef';
  const now = new Date('2026-03-01T09:00:00Z');

  it('reads back a session it issued, with its expiry and a CSRF token', () => {
    const session = readSession(newSessionValue(token, now), token, now);
    expect(session?.expiresAt.toISOString()).to.equal('2026-03-01T17:00:00.000Z');
    expect(session?.csrfToken).to.match(/^[\w-]{43}$/);
  });

  it('gives each session its own CSRF token', () => {
    const first = readSession(newSessionValue(token, now), token, now)!;
    const second = readSession(newSessionValue(token, now), token, now)!;
    expect(first.csrfToken).not.to.equal(second.csrfToken);
  });

  it('refuses a session past its expiry, of another admin token, or altered', () => {
    const value = newSessionValue(token, now);
    expect(readSession(value, token, new Date(now.getTime() + SESSION_TTL_MS - 1))).not.to.equal(undefined);
    expect(readSession(value, token, new Date(now.getTime() + SESSION_TTL_MS))).to.equal(undefined);
    expect(readSession(value, 'another-admin-token-0123456789', now)).to.equal(undefined);
    expect(readSession(value, undefined, now)).to.equal(undefined);
    const [expiry, nonce, signature] = value.split('.') as [string, string, string];
    expect(readSession(`${Number(expiry) + 60_000}.${nonce}.${signature}`, token, now)).to.equal(undefined);
    expect(readSession(`${expiry}.${nonce}x.${signature}`, token, now)).to.equal(undefined);
    expect(readSession(`${expiry}.${nonce}`, token, now)).to.equal(undefined);
    expect(readSession('', token, now)).to.equal(undefined);
  });

  it('compares admin tokens exactly', () => {
    expect(isAdminToken(token, token)).to.equal(true);
    expect(isAdminToken(`${token} `, token)).to.equal(false);
    expect(isAdminToken('', token)).to.equal(false);
    expect(isAdminToken(token, undefined)).to.equal(false);
  });
});
