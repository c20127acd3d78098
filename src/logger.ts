import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs on stdout. Secrets never reach a log line: the request logger logs no headers or bodies.
 *
 * Written asynchronously: a busy gateway logs a line per request, and a blocking write of each line was
 * one system call per request on the event loop (about 3 % of the gateway's CPU in a profile under load).
 * Lines that arrive while a write is under way go out together in the next one; nothing waits for a
 * buffer to fill, so a line still appears at once on a quiet gateway. pino flushes what is pending when the
 * process exits (also on SIGTERM and uncaught exceptions); a hard kill can lose the last lines.
 */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'model-gateway' } }, pino.destination({ sync: false }));
}
