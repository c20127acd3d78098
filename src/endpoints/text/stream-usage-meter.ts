import type { CanonicalStreamEvent } from '../../formats/canonical/canonical-stream-event.js';
import type { FormatName } from '../../formats/canonical/format-name.js';
import type { ClientStream, StreamDecoder } from '../../formats/canonical/stream-codec.js';
import { formatCodecs } from '../../formats/format-codecs.js';
import { isJsonObject } from '../../formats/json-value.js';
import type { SseEvent } from '../../formats/sse-event.js';
import { withTokenizerMargin } from '../../billing/reserve-margin.js';
import { countTokens } from '../../billing/o200k-token-counter.js';
import { createUsage, type Usage } from '../../billing/usage.js';

/** Provider events held before they are counted and dropped: memory stays flat for an answer of any length. */
const HELD_BYTES_LIMIT = 256 * 1024;

/**
 * Counts what a provider stream delivered, as it passes, for the settlement of a stream whose provider did
 * not report final usage (it ended early, or the provider reports none; spec 3.5: spending is counted by
 * what was received). Events are held until they add up to `HELD_BYTES_LIMIT`, then decoded, their text,
 * reasoning and tool arguments tokenized, and dropped. A stream that ends with the provider's usage (the
 * usual case) is never decoded a second time; a long one is counted piece by piece.
 */
export class StreamUsageMeter {
  private held: SseEvent[] = [];
  private heldBytes = 0;
  private readonly decoder: StreamDecoder;
  /** Chat with `n` > 1: a decoder for each further answer (the format's decoder follows the first only). */
  private readonly otherAnswers: Map<number, StreamDecoder> | undefined;
  private readonly decoded: CanonicalStreamEvent[] = [];
  private countedTokens = 0;
  private imageParts = 0;
  private readonly countImages: boolean;

  constructor(
    private readonly providerFormat: FormatName,
    /** The reserve's upper bound of the input, used when the provider said nothing of it. */
    private readonly inputTokens: number,
    options: {
      /** Image models are charged per image: count the images delivered too. */
      readonly countImages: boolean;
      /** Answers the provider may stream at once (chat's `n`): each one's output is counted. */
      readonly answers: number;
    },
  ) {
    this.decoder = formatCodecs[providerFormat].createDecoder();
    this.countImages = options.countImages;
    this.otherAnswers = providerFormat === 'chat' && options.answers > 1 ? new Map() : undefined;
  }

  observe(event: SseEvent): void {
    if (this.countImages) this.imageParts += event.data.match(IMAGE_PART)?.length ?? 0;
    this.held.push(event);
    this.heldBytes += event.data.length;
    if (this.heldBytes >= HELD_BYTES_LIMIT) this.countHeld();
  }

  /**
   * What the stream is charged. A finished stream carries the provider's final usage. A stream that ended
   * early carries at most what the provider said up front (a messages `message_start` has the input and an
   * output of 1), so the output received is counted instead (peer-pitfalls: spend recorded as zero).
   */
  settlement(stream: ClientStream): Usage {
    const finished = stream.done && stream.error === undefined;
    const images = this.countImages ? { images: Math.max(1, this.imageParts) } : {};
    if (stream.usage && finished) return { ...stream.usage, ...images };
    this.countHeld();
    const counted = { inputTokens: this.inputTokens, outputTokens: withTokenizerMargin(this.countedTokens), counted: true };
    if (!stream.usage) return createUsage({ ...counted, ...images });
    const reported = stream.usage;
    return {
      ...reported,
      inputTokens: reported.inputTokens || counted.inputTokens,
      outputTokens: Math.max(reported.outputTokens ?? 0, counted.outputTokens),
      counted: true,
      ...images,
    };
  }

  private countHeld(): void {
    let text = '';
    for (const event of this.held) {
      text += this.textOf(this.decoder, event);
      if (this.otherAnswers) for (const [decoder, answer] of furtherAnswers(this.otherAnswers, event)) text += this.textOf(decoder, answer);
    }
    this.held = [];
    this.heldBytes = 0;
    if (text.length > 0) this.countedTokens += countTokens(text);
  }

  /** The text, reasoning and tool arguments one provider event adds to the answer `decoder` follows. */
  private textOf(decoder: StreamDecoder, event: SseEvent): string {
    let text = '';
    try {
      decoder.push(event, this.decoded);
    } catch {
      // a malformed provider event adds nothing countable
    }
    for (const decoded of this.decoded) {
      if (decoded.type === 'text_delta' || decoded.type === 'reasoning_delta') text += JSON.parse(decoded.text) as string;
      else if (decoded.type === 'tool_call_delta') text += JSON.parse(decoded.arguments) as string;
    }
    this.decoded.length = 0;
    return text;
  }
}

/** An image of an image model's chat stream (`delta.images[].image_url`). */
const IMAGE_PART = /"image_url"\s*:/g;

/**
 * A chat chunk's choices after the first, each as a chunk of its own with index 0 for that answer's own
 * decoder (made on first sight): every answer is counted by the same rules as the first.
 */
function* furtherAnswers(decoders: Map<number, StreamDecoder>, event: SseEvent): Generator<[StreamDecoder, SseEvent]> {
  let chunk: unknown;
  try {
    chunk = JSON.parse(event.data);
  } catch {
    return; // `[DONE]`, or malformed: nothing countable
  }
  if (!isJsonObject(chunk) || !Array.isArray(chunk.choices)) return;
  for (const choice of chunk.choices) {
    if (!isJsonObject(choice) || typeof choice.index !== 'number' || choice.index === 0) continue;
    let decoder = decoders.get(choice.index);
    if (!decoder) decoders.set(choice.index, (decoder = formatCodecs.chat.createDecoder()));
    yield [decoder, { data: JSON.stringify({ ...chunk, usage: null, choices: [{ ...choice, index: 0 }] }) }];
  }
}
