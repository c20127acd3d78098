import { fromJsonLiteral, joinJsonLiterals, type JsonStringLiteral } from '../../src/formats/json-string-literal.js';
import type { CanonicalError } from '../../src/formats/canonical/canonical-error.js';
import type { CanonicalResponse, OutputPart, StopReason } from '../../src/formats/canonical/canonical-response.js';
import type { CanonicalStreamEvent } from '../../src/formats/canonical/canonical-stream-event.js';
import type { Usage } from '../../src/billing/usage.js';

type OpenPart =
  | { kind: 'text'; pieces: JsonStringLiteral[] }
  | { kind: 'reasoning'; pieces: JsonStringLiteral[]; signature?: string }
  | { kind: 'tool'; index: number; id: string; name: string; pieces: JsonStringLiteral[] };

/**
 * Folds a canonical stream into the response it describes, so that tests can check that a stream and the
 * non-streamed answer to the same request say the same thing.
 */
export class CanonicalResponseAccumulator {
  private readonly parts: OutputPart[] = [];
  private open: OpenPart | undefined;
  private id = '';
  private model = '';
  private usage: Usage | undefined;
  private stopReason: StopReason | undefined;
  private stopSequence: string | undefined;
  private failure: CanonicalError | undefined;

  push(event: CanonicalStreamEvent): void {
    switch (event.type) {
      case 'start':
        this.id = event.id;
        this.model = event.model;
        this.usage = event.usage;
        return;
      case 'text_delta':
        if (this.open?.kind !== 'text') this.openPart({ kind: 'text', pieces: [] });
        (this.open as { pieces: JsonStringLiteral[] }).pieces.push(event.text);
        return;
      case 'reasoning_delta':
        if (this.open?.kind !== 'reasoning') this.openPart({ kind: 'reasoning', pieces: [] });
        (this.open as { pieces: JsonStringLiteral[] }).pieces.push(event.text);
        return;
      case 'reasoning_signature':
        if (this.open?.kind !== 'reasoning') this.openPart({ kind: 'reasoning', pieces: [] });
        (this.open as { signature?: string }).signature = event.signature;
        this.closePart();
        return;
      case 'redacted_reasoning':
        this.closePart();
        this.parts.push({ type: 'redacted_reasoning', data: event.data });
        return;
      case 'tool_call_start':
        this.openPart({ kind: 'tool', index: event.index, id: event.id, name: event.name, pieces: [] });
        return;
      case 'tool_call_delta':
        if (this.open?.kind === 'tool' && this.open.index === event.index) this.open.pieces.push(event.arguments);
        return;
      case 'tool_call_end':
        if (this.open?.kind === 'tool' && this.open.index === event.index) this.closePart();
        return;
      case 'finish':
        this.closePart();
        this.stopReason = event.stopReason;
        this.stopSequence = event.stopSequence;
        if (event.usage) this.usage = event.usage;
        return;
      case 'error':
        this.closePart();
        this.failure = event.error;
        return;
      default: {
        const unreachable: never = event;
        throw new Error(`unknown canonical event ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /** The response so far; `stopReason` is `error` when the stream failed or has not finished. */
  response(): CanonicalResponse {
    this.closePart();
    return {
      id: this.id,
      model: this.model,
      content: this.parts,
      stopReason: this.failure || !this.stopReason ? 'error' : this.stopReason,
      ...(this.stopSequence === undefined ? {} : { stopSequence: this.stopSequence }),
      ...(this.usage ? { usage: this.usage } : {}),
      ...(this.failure ? { error: this.failure } : {}),
    };
  }

  private openPart(part: OpenPart): void {
    this.closePart();
    this.open = part;
  }

  private closePart(): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    const text = open.pieces.length === 0 ? '' : fromJsonLiteral(joinJsonLiterals(open.pieces));
    switch (open.kind) {
      case 'text':
        this.parts.push({ type: 'text', text });
        return;
      case 'reasoning':
        this.parts.push({ type: 'reasoning', text, ...(open.signature === undefined ? {} : { signature: open.signature }) });
        return;
      case 'tool':
        this.parts.push({ type: 'tool_call', id: open.id, name: open.name, arguments: text });
        return;
    }
  }
}
