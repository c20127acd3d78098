import type { RequestHandler } from 'express';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors/gateway-error.js';
import { clientAddress, type SignInThrottle } from '../http/sign-in-throttle.js';
import { cookieValue, isAdminToken, passesCsrfCheck, readSession, SESSION_COOKIE } from './console-session.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Who may call the admin API: a client with `Authorization: Bearer <ADMIN_TOKEN>`, or the console's
 * browser with its session cookie (src/admin/console-session.ts). The cookie alone is enough to read; a
 * call that changes something also needs the console's CSRF header and a same-origin `Origin`, so a page
 * of another site that makes the browser send the cookie changes nothing (`403 csrf_check_failed`).
 * An `Authorization` header, when present, decides alone: a wrong token is refused even with a cookie.
 * Wrong tokens are counted per client address by `throttle` (src/http/sign-in-throttle.ts).
 */
export function adminAccess(adminToken: string | undefined, clock: Clock, throttle?: SignInThrottle): RequestHandler {
  return (req, _res, next) => {
    const header = req.get('authorization');
    if (header !== undefined) {
      const address = clientAddress(req);
      try {
        throttle?.check(address);
      } catch (error) {
        req.resume();
        next(error);
        return;
      }
      const presented = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
      if (isAdminToken(presented, adminToken)) {
        throttle?.succeeded(address);
        next();
        return;
      }
      throttle?.failed(address, 'admin API');
      req.resume();
      next(new GatewayError('invalid_admin_token'));
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
