import { connect } from 'node:net';
import type { AccountOutcome } from '../accounts.js';
import type { CommandFrame, HelloFrame } from './account-link-server.js';
import { LineFrames } from './line-frames.js';
import { decodeError, decodeOutcome, encodeCommand, type ForwardedCommand, type WireOutcome, type WireRejection } from './account-wire.js';

/**
 * The command did not get an answer from the owner: the link could not be opened, or it closed before
 * the answer came. The caller runs the command itself; every forwarded command is safe to run twice
 * (a reserve of an open reservation, a close of a closed one, decide nothing).
 */
export class AccountLinkError extends Error {
  override name = 'AccountLinkError';
}

/** After a connection closes, calls fail at once for this long instead of connecting again for each. */
const RECONNECT_AFTER_MS = 1_000;

interface AnswerFrame {
  readonly i: number;
  readonly r?: WireOutcome;
  readonly n?: true;
  readonly e?: Partial<WireRejection> & { message: string };
}

interface Waiting {
  resolve(answer: AccountOutcome | 'not_owner'): void;
  reject(error: Error): void;
}

/** One instance's connection to another instance's AccountLinkServer, opened on the first call. */
export class AccountLinkClient {
  private frames: LineFrames | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private downUntil = 0;
  private closed = false;

  constructor(
    readonly address: string,
    private readonly secret: string,
  ) {}

  call(orgId: string, command: ForwardedCommand, causedBy: string): Promise<AccountOutcome | 'not_owner'> {
    if (this.closed || Date.now() < this.downUntil) return Promise.reject(new AccountLinkError(`account link to ${this.address} is down`));
    const frames = this.frames ?? this.open();
    const id = this.nextId++;
    const frame: CommandFrame = { i: id, o: orgId, c: encodeCommand(command), b: causedBy };
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      frames.send(frame);
    });
  }

  close(): void {
    this.closed = true;
    this.frames?.socket.destroy();
  }

  private open(): LineFrames {
    const separator = this.address.lastIndexOf(':');
    const socket = connect({ host: this.address.slice(0, separator), port: Number(this.address.slice(separator + 1)) });
    const frames = new LineFrames(socket, (frame) => this.answer(frame as AnswerFrame));
    this.frames = frames;
    socket.on('error', () => undefined);
    socket.once('close', () => {
      if (this.frames === frames) this.frames = undefined;
      // Refused, dropped for a wrong secret, or the owner shutting down: the caller finds the owner again.
      this.downUntil = Date.now() + RECONNECT_AFTER_MS;
      const lost = [...this.waiting.values()];
      this.waiting.clear();
      for (const waiting of lost) waiting.reject(new AccountLinkError(`account link to ${this.address} closed before the answer`));
    });
    const hello: HelloFrame = { secret: this.secret };
    frames.send(hello);
    return frames;
  }

  private answer(frame: AnswerFrame): void {
    const waiting = this.waiting.get(frame.i);
    if (!waiting) return;
    this.waiting.delete(frame.i);
    if (frame.r) waiting.resolve(decodeOutcome(frame.r));
    else if (frame.n) waiting.resolve('not_owner');
    else if (frame.e?.code) waiting.reject(decodeError(frame.e as WireRejection));
    else waiting.reject(new Error(`account command failed at ${this.address}: ${frame.e?.message ?? 'no answer'}`));
  }
}
