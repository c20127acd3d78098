import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';
import { GatewayError } from '../errors/gateway-error.js';

/**
 * The console's built files (`npm run build` writes them to dist/console, ops/console-build.ts): the page at
 * `/console`, never cached (`no-cache`: it names the current bundle), and its bundle under
 * `/console/assets/`, whose names carry a content hash, cached for a year as `immutable`. No CDN and nothing
 * downloaded at run time: the gateway serves exactly what the build wrote.
 */
export const CONSOLE_ASSETS_PATH = '/console/assets';

/** The project root: the nearest folder above this module holding package.json (from src/ and dist/src/ alike). */
function projectRoot(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(directory, 'package.json'))) {
    const parent = dirname(directory);
    if (parent === directory) return process.cwd();
    directory = parent;
  }
  return directory;
}

export const DEFAULT_CONSOLE_DIR = join(projectRoot(), 'dist', 'console');

/**
 * Only this origin's scripts and styles, no framing (clickjacking), no referrer: the page holds no secret
 * in the DOM beyond a freshly issued key, but an injected script would act with the session.
 */
const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-cache',
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

export function consoleStatic(directory: string = DEFAULT_CONSOLE_DIR): Router {
  const router = Router();
  router.get(['/console', '/console/'], async (_req, res) => {
    let page: Buffer;
    try {
      page = await readFile(join(directory, 'index.html'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      throw new GatewayError('service_unavailable', `the console is not built: run \`npm run build\` (it writes ${join(directory, 'index.html')})`);
    }
    res.status(200).set(PAGE_HEADERS).send(page);
  });
  router.use(
    CONSOLE_ASSETS_PATH,
    express.static(join(directory, 'assets'), {
      immutable: true,
      maxAge: '365d',
      index: false,
      redirect: false,
      fallthrough: true,
      setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
    }),
  );
  return router;
}
