import { PII_KINDS } from '../pii-kinds.js';
import type { Placeholders } from '../placeholders.js';
import { unmaskText } from '../unmask-text.js';

/** Longest placeholder: `[NATIONAL_ID_` and nine digits and `]`. */
const LONGEST = Math.max(...PII_KINDS.map((kind) => kind.length)) + 12;

/**
 * One streamed text (a choice's content, a block's text, a tool call's arguments) unmasked piece by piece.
 * A model writes a placeholder token by token, so `[EMA` may end one event and `IL_1]` begin the next: a
 * piece that ends in what could still become a placeholder keeps that end back, and the next piece (or the
 * end of the text) decides. Nothing else is held: text without a `[` near its end passes at once.
 */
export class UnmaskingChannel {
  private held = '';

  constructor(
    private readonly placeholders: Placeholders,
    /** The text is JSON (tool-call arguments): values are written escaped. */
    private readonly inJson: boolean,
  ) {}

  get holding(): boolean {
    return this.held.length > 0;
  }

  /** What can be given out of this piece now, unmasked. */
  push(piece: string): string {
    const text = this.held + piece;
    const cut = heldFrom(text);
    this.held = text.slice(cut);
    return unmaskText(cut === text.length ? text : text.slice(0, cut), this.placeholders, this.inJson);
  }

  /** The text is over: whatever was held was not a placeholder after all. */
  flush(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }
}

/** Where the unfinished placeholder at the end of `text` starts, or `text.length` when it ends in none. */
function heldFrom(text: string): number {
  const bracket = text.lastIndexOf('[');
  if (bracket === -1 || text.length - bracket > LONGEST) return text.length;
  return isPlaceholderStart(text.slice(bracket + 1)) ? bracket : text.length;
}

/** `rest` (after the `[`) is the beginning of `KIND_digits` for some kind. */
function isPlaceholderStart(rest: string): boolean {
  for (const kind of PII_KINDS) {
    const stem = `${kind}_`;
    if (stem.startsWith(rest)) return true;
    if (rest.startsWith(stem) && /^\d{0,9}$/.test(rest.slice(stem.length))) return true;
  }
  return false;
}

/** The channels of one stream, made on first use under a key that names the text they carry. */
export class UnmaskingChannels {
  private readonly channels = new Map<string, UnmaskingChannel>();

  constructor(private readonly placeholders: Placeholders) {}

  get holding(): boolean {
    for (const channel of this.channels.values()) if (channel.holding) return true;
    return false;
  }

  push(key: string, piece: string, inJson = false): string {
    let channel = this.channels.get(key);
    if (!channel) this.channels.set(key, (channel = new UnmaskingChannel(this.placeholders, inJson)));
    return channel.push(piece);
  }

  /** What `key`'s channel still holds, given out as the text ends (empty when nothing is held). */
  flush(key: string): string {
    return this.channels.get(key)?.flush() ?? '';
  }

  /** The keys whose channels hold text, for the end of a stream. */
  heldKeys(): string[] {
    return [...this.channels].filter(([, channel]) => channel.holding).map(([key]) => key);
  }
}
