import { Router } from 'express';
import { clientAddress, type SignInThrottle } from '../http/sign-in-throttle.js';
import { z } from 'zod';
import type { ConsoleSessionRecord } from '../admin-records.js';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors/gateway-error.js';
import { consoleStatic, DEFAULT_CONSOLE_DIR } from '../http/console-static.js';
import { parseJsonObject, readBody } from '../http/request-body.js';
import { parseBody } from './admin-schemas.js';
import {
  cookieValue,
  isAdminToken,
  isSameOrigin,
  newSessionValue,
  passesCsrfCheck,
  readSession,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  sessionCookie,
} from './console-session.js';

export interface ConsoleDependencies {
  readonly adminToken: string | undefined;
  readonly clock: Clock;
  /** Counts and throttles wrong tokens at the sign-in per client address. */
  readonly signIns?: SignInThrottle;
  /** Where the built console is (default dist/console). */
  readonly directory?: string;
}

const SIGN_IN_BODY_LIMIT = 4096;
const signInBody = z.strictObject({ token: z.string().min(1, 'must not be empty').max(1024) });

/**
 * The web console (README, "Console"): its built files and its session.
 * - `POST /console/session` `{token}`: the admin token for a session cookie (204);
 * - `GET /console/session`: whether the cookie holds a session, with the CSRF token the page sends back;
 * - `DELETE /console/session`: sign-out, clears the cookie.
 * Everything the console shows or does afterwards is an admin API call (src/admin/admin-access.ts).
 */
export function consoleRoutes(deps: ConsoleDependencies): Router {
  const router = Router();
  const noStore = { 'Cache-Control': 'no-store' };
  const sessionOf = (req: Parameters<typeof cookieValue>[0]) => readSession(cookieValue(req, SESSION_COOKIE), deps.adminToken, deps.clock.now());

  router.post('/console/session', async (req, res) => {
    // A sign-in from another site's page is refused too (login CSRF), even with the right token.
    if (!isSameOrigin(req)) {
      req.resume();
      throw new GatewayError('csrf_check_failed');
    }
    const address = clientAddress(req);
    try {
      deps.signIns?.check(address);
    } catch (error) {
      req.resume();
      throw error;
    }
    const input = parseBody(signInBody, parseJsonObject(await readBody(req, SIGN_IN_BODY_LIMIT)));
    if (!deps.adminToken || !isAdminToken(input.token, deps.adminToken)) {
      deps.signIns?.failed(address, 'console sign-in');
      throw new GatewayError('invalid_admin_token');
    }
    deps.signIns?.succeeded(address);
    const value = newSessionValue(deps.adminToken, deps.clock.now());
    res.status(204).set(noStore).setHeader('Set-Cookie', sessionCookie(req, value, SESSION_TTL_MS / 1000)).end();
  });

  router.get('/console/session', (req, res) => {
    const session = sessionOf(req);
    if (!session) throw new GatewayError('invalid_admin_token', 'not signed in to the console');
    res.set(noStore).json({ object: 'console_session', expires_at: session.expiresAt.toISOString(), csrf_token: session.csrfToken } satisfies ConsoleSessionRecord);
  });

  router.delete('/console/session', (req, res) => {
    const session = sessionOf(req);
    if (session && !passesCsrfCheck(req, session)) throw new GatewayError('csrf_check_failed');
    res.status(204).set(noStore).setHeader('Set-Cookie', sessionCookie(req, '', 0)).end();
  });

  router.use(consoleStatic(deps.directory ?? DEFAULT_CONSOLE_DIR));
  return router;
}
