import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON logs on stdout. Secrets never reach a log line: the request logger logs no headers or bodies. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'model-gateway' } });
}
