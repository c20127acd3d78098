import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** JSON logs on stdout. Secrets never reach a log line: the request logger logs no headers or bodies. */
export function createLogger(level: string): Logger {
  stdout ??= new TurnBatchedStdout();
  return pino({ level, base: { service: 'model-gateway' } }, stdout);
}

/** One for the process, whatever the number of loggers. */
let stdout: TurnBatchedStdout | undefined;

/**
 * Stdout for the log, written synchronously once per turn of the event loop: the lines of the requests
 * that end together (a batch of settlements resolves in one turn) go out in one write instead of one
 * system call — and one wake-up of whatever reads the pipe — each. A line waits at most for the turn to
 * end, so an operator still sees it at once; lines still buffered when the process exits are written then.
 */
class TurnBatchedStdout implements DestinationStream {
  private readonly stdout = pino.destination({ dest: 1, sync: true });
  private lines: string[] = [];
  private scheduled = false;

  constructor() {
    process.once('exit', () => this.flush());
  }

  write(line: string): void {
    this.lines.push(line);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? this.lines[0]! : this.lines.join('');
    this.lines = [];
    this.stdout.write(text);
  }
}
