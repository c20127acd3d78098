import type { RequestHandler } from 'express';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors/gateway-error.js';
import { cookieValue, isAdminToken, passesCsrfCheck, readSession, SESSION_COOKIE } from './console-session.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Who may call the admin API: a client with `Authorization: Bearer <ADMIN_TOKEN>`, or the console's
 * browser with its session cookie (src/admin/console-session.ts). The cookie alone is enough to read; a
 * call that changes something also needs the console's CSRF header and a same-origin `Origin`, so a page
 * of another site that makes the browser send the cookie changes nothing (`403 csrf_check_failed`).
 * An `Authorization` header, when present, decides alone: a wrong token is refused even with a cookie.
 */
export function adminAccess(adminToken: string | undefined, clock: Clock): RequestHandler {
  return (req, _res, next) => {
    const header = req.get('authorization');
    if (header !== undefined) {
      const presented = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
      next(isAdminToken(presented, adminToken) ? undefined : new GatewayError('invalid_admin_token'));
      return;
    }
    const session = readSession(cookieValue(req, SESSION_COOKIE), adminToken, clock.now());
    if (!session) {
      next(new GatewayError('invalid_admin_token'));
      return;
    }
    if (!READS.has(req.method) && !passesCsrfCheck(req, session)) {
      req.resume();
      next(new GatewayError('csrf_check_failed'));
      return;
    }
    next();
  };
}
