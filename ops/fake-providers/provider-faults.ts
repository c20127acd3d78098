import type { ServerResponse } from 'node:http';
import type { ScriptedAnswer } from './scripted-answer.js';

/**
 * The ways a real provider fails, as the fakes play them: each a script (scripted-answer.ts), queued like
 * any answer, or chosen by the request itself when its body contains `fake-fault:<name>` (in a prompt, a
 * message, an input): many requests with different faults can then run at once, each getting its own,
 * whatever order they arrive in. Connection refused is not here: point a provider at a closed port.
 */
export const PROVIDER_FAULTS = {
  /** The connection is reset (TCP RST) before any status line. */
  reset: { transport: 'reset_before_headers' },
  /** A stream cut mid-answer (the socket destroyed after two events); a JSON body cut halfway. */
  reset_mid_answer: { failAfterEvents: 2, transport: 'reset_mid_body' },
  /** No status line for a minute: longer than any provider timeout the tests set. */
  stall: { firstByteDelayMs: 60_000 },
  /** The answer, one byte a second. */
  trickle: { transport: 'trickle' },
  /** A 200 whose JSON (or whose stream's event data) does not parse. */
  malformed: { transport: 'malformed' },
  /** A 200 stream that ends cleanly after two events: no finish, no usage, no `[DONE]`. */
  truncated: { truncateAfterEvents: 2 },
  /** A complete answer that reports no usage anywhere. */
  no_usage: { usage: null },
  /** 400: the provider refuses the request itself (its own error body). */
  bad_request: { error: { status: 400 } },
  /** 429 with Retry-After. */
  rate_limited: { error: { status: 429, retryAfter: 7 } },
  /** 529 (overloaded, Anthropic's) with Retry-After. */
  overloaded: { error: { status: 529, retryAfter: 3, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } } },
  /** A valid answer of 10 MiB of text, in words as a model writes them (a transcript, a completion, 160 stream deltas). */
  huge: { text: 'The quick brown fox jumps over the lazy dog. '.repeat(233_017), deltas: 160 },
  /** A valid image answer of about 10 MB (one image's base64). */
  huge_image: { images: ['A'.repeat(10 * 1024 * 1024)] },
  /** An answer that never ends: a JSON body that keeps coming, or a stream of text deltas a millisecond apart for minutes. */
  endless: { transport: 'endless', text: 'tick '.repeat(20_000), eventDelayMs: 1 },
} as const satisfies Record<string, ScriptedAnswer>;

export type ProviderFaultName = keyof typeof PROVIDER_FAULTS;

const MARKER = /fake-fault:([a-z_]+)/;

/** The fault a request names in its body (`fake-fault:<name>`), if any. */
export function faultNamedIn(rawBody: Buffer): ScriptedAnswer | undefined {
  // a marker sits in the prompt, near the start; a large upload is not searched through
  const match = MARKER.exec(rawBody.subarray(0, 64 * 1024).toString('latin1'));
  const name = match?.[1];
  return name !== undefined && Object.hasOwn(PROVIDER_FAULTS, name) ? PROVIDER_FAULTS[name as ProviderFaultName] : undefined;
}

const TRICKLE_INTERVAL_MS = 1_000;

/**
 * Bends the response's writes to the script's transport fault: `trickle` sends what is written one byte a
 * second; `reset_mid_body` sends half of a body given to `end()` and then destroys the socket. The other
 * faults are played where the answer would be written (`playTransportFault`).
 */
export function applyTransportFault(response: ServerResponse, answer: ScriptedAnswer, closed: AbortSignal): void {
  if (answer.transport === 'trickle') {
    const pending: number[] = [];
    let ending = false;
    let timer: NodeJS.Timeout | undefined;
    const write = response.write.bind(response) as (chunk: Buffer) => boolean;
    const end = response.end.bind(response) as () => ServerResponse;
    const drip = () => {
      timer = undefined;
      if (closed.aborted) return;
      const byte = pending.shift();
      if (byte !== undefined) write(Buffer.of(byte));
      if (pending.length > 0) timer = setTimeout(drip, TRICKLE_INTERVAL_MS);
      else if (ending) end();
    };
    const queue = (chunk: unknown) => {
      if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') pending.push(...Buffer.from(chunk as string));
      timer ??= setTimeout(drip, 0);
    };
    response.write = ((chunk: unknown, ...rest: unknown[]) => {
      queue(chunk);
      const callback = rest.find((value) => typeof value === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }) as ServerResponse['write'];
    response.end = ((chunk?: unknown) => {
      ending = true;
      queue(chunk);
      return response;
    }) as ServerResponse['end'];
    closed.addEventListener('abort', () => clearTimeout(timer), { once: true });
  } else if (answer.transport === 'reset_mid_body') {
    const end = response.end.bind(response) as (chunk?: unknown) => ServerResponse;
    response.end = ((chunk?: unknown) => {
      if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) {
        const bytes = Buffer.from(chunk as string);
        response.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => response.socket?.destroy());
        return response;
      }
      return end(chunk);
    }) as ServerResponse['end'];
  }
}

/**
 * Plays the faults that replace the answer altogether; true when it did. `stream`: whether the request
 * asked for a stream (a malformed stream is events whose data does not parse).
 */
export async function playTransportFault(response: ServerResponse, answer: ScriptedAnswer, stream: boolean, closed: AbortSignal): Promise<boolean> {
  switch (answer.transport) {
    case 'reset_before_headers':
      response.socket?.resetAndDestroy();
      return true;
    case 'malformed':
      if (stream) {
        response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
        response.end('data: {"id": "broken", "choices": [\n\ndata: not json at all\n\n');
      } else {
        const body = Buffer.from('{"id": "broken", "object": "chat.completion", "choices": [');
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
        response.end(body);
      }
      return true;
    case 'endless':
      if (stream) return false; // the script's own long, slow stream
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"id": "endless", "object": "chat.completion", "padding": "');
      {
        const chunk = Buffer.alloc(1024 * 1024, 'x');
        while (!closed.aborted && !response.destroyed) {
          // a turn of the event loop between writes even when the socket takes them at once: the fakes
          // share their process with the tests and the other fakes' answers
          if (response.write(chunk)) await new Promise((resolve) => setImmediate(resolve));
          else
            await new Promise<void>((resolve) => {
              const done = () => resolve();
              response.once('drain', done);
              closed.addEventListener('abort', done, { once: true });
            });
        }
      }
      return true;
    default:
      return false;
  }
}
