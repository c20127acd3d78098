import { Router } from 'express';

/** Something the gateway needs to serve: the database, and Redis or EventStoreDB when configured. */
export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<void>;
  /** The gateway still serves without it (Redis under REDIS_OUTAGE=fail-open): reported, not fatal. */
  readonly optional?: boolean;
}

const CHECK_TIMEOUT_MS = 2_000;

/**
 * `/healthz`: the process answers. `/readyz`: every dependency answers within two seconds (`ready`, 200);
 * else `unavailable` (503), or `degraded` (200) when only optional ones fail; `checks` names what is down.
 */
export function healthRoutes(checks: readonly ReadinessCheck[]): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      checks.map(async ({ name, check, optional }) => ({
        name,
        optional: optional === true,
        result: await withTimeout(check()).then(() => 'ok', (error: Error) => `error: ${error.message}`),
      })),
    );
    const failed = results.filter(({ result }) => result !== 'ok');
    const status = failed.length === 0 ? 'ready' : failed.every(({ optional }) => optional) ? 'degraded' : 'unavailable';
    res.status(status === 'unavailable' ? 503 : 200).json({ status, checks: Object.fromEntries(results.map(({ name, result }) => [name, result])) });
  });
  return router;
}

function withTimeout(promise: Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}
