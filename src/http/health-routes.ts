import { Router } from 'express';

/** Something the gateway needs to serve: the database, and Redis or EventStoreDB when configured. */
export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<void>;
}

const CHECK_TIMEOUT_MS = 2_000;

/** `/healthz`: the process answers. `/readyz`: every dependency answers within two seconds. */
export function healthRoutes(checks: readonly ReadinessCheck[]): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      checks.map(async ({ name, check }) => [name, await withTimeout(check()).then(() => 'ok', (error: Error) => `error: ${error.message}`)] as const),
    );
    const ready = results.every(([, result]) => result === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks: Object.fromEntries(results) });
  });
  return router;
}

function withTimeout(promise: Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}
