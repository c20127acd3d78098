import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { isGatewayError } from '../../errors/gateway-error.js';
import type { Logger } from '../../logger.js';
import type { AccountOutcome } from '../accounts.js';
import { LineFrames } from './line-frames.js';
import { decodeCommand, encodeError, encodeOutcome, type ForwardedCommand, type WireCommand } from './account-wire.js';

/** What the owner does with a forwarded command: its outcome, or `not_owner` when it no longer holds the lease. */
export type LinkHandler = (orgId: string, command: ForwardedCommand, causedBy: string) => Promise<AccountOutcome | 'not_owner'>;

/** A connection's first frame: the shared secret (ACCOUNT_LINK_SECRET). */
export interface HelloFrame {
  readonly secret: string;
}
/** A forwarded command: `i` numbers it on its connection, `o` is the organization, `b` what caused it. */
export interface CommandFrame {
  readonly i: number;
  readonly o: string;
  readonly c: WireCommand;
  readonly b: string;
}

/** How long a closing server waits for the answers of commands it is running before it drops connections. */
const CLOSE_GRACE_MS = 5_000;

/**
 * The owner's end of the account link: a TCP server that runs the commands other instances forward to
 * it and answers each on the connection it came by. A connection that does not open with the secret is
 * dropped. The link carries money commands unencrypted: it belongs on the instances' private network.
 */
export class AccountLinkServer {
  private readonly connections = new Set<Socket>();
  private running = 0;
  private idle: (() => void) | undefined;

  private constructor(
    private readonly server: Server,
    private readonly handler: LinkHandler,
    private readonly secretDigest: Buffer,
    private readonly logger: Logger | undefined,
  ) {}

  static async listen(options: { host: string; port: number; secret: string; handler: LinkHandler; logger?: Logger }): Promise<AccountLinkServer> {
    const server = createServer();
    const link = new AccountLinkServer(server, options.handler, digest(options.secret), options.logger);
    server.on('connection', (socket) => link.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return link;
  }

  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  /** Stops accepting, lets the commands being run answer (up to CLOSE_GRACE_MS), then drops the connections. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.running > 0) {
      await new Promise<void>((resolve) => {
        this.idle = resolve;
        setTimeout(resolve, CLOSE_GRACE_MS).unref();
      });
      // The last answers leave in the next turn of the event loop (LineFrames batches its writes).
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const socket of this.connections) socket.destroy();
    await closed;
  }

  private accept(socket: Socket): void {
    this.connections.add(socket);
    socket.on('close', () => this.connections.delete(socket));
    socket.on('error', (error) => this.logger?.debug({ err: error }, 'account link connection failed'));
    let authenticated = false;
    const frames = new LineFrames(socket, (frame) => {
      if (!authenticated) {
        authenticated = this.admits(frame);
        if (!authenticated) {
          this.logger?.warn({ remote: socket.remoteAddress }, 'account link: refused a connection without the right ACCOUNT_LINK_SECRET');
          socket.destroy();
        }
        return;
      }
      void this.run(frames, frame as CommandFrame);
    });
  }

  private admits(frame: unknown): boolean {
    const secret = (frame as Partial<HelloFrame> | null)?.secret;
    return typeof secret === 'string' && timingSafeEqual(digest(secret), this.secretDigest);
  }

  private async run(frames: LineFrames, frame: CommandFrame): Promise<void> {
    this.running++;
    try {
      const answer = await this.handler(frame.o, decodeCommand(frame.c), frame.b);
      frames.send(answer === 'not_owner' ? { i: frame.i, n: true } : { i: frame.i, r: encodeOutcome(answer) });
    } catch (error) {
      // The command failed at the owner as it would have here (the store refused, say): the caller gets the error.
      frames.send({ i: frame.i, e: isGatewayError(error) ? encodeError(error) : { message: error instanceof Error ? error.message : String(error) } });
    } finally {
      this.running--;
      if (this.running === 0) this.idle?.();
    }
  }
}

const digest = (secret: string) => createHash('sha256').update(secret).digest();
