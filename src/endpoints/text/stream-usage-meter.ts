import type { CanonicalStreamEvent } from '../../formats/canonical/canonical-stream-event.js';
import type { FormatName } from '../../formats/canonical/format-name.js';
import type { ClientStream, StreamDecoder } from '../../formats/canonical/stream-codec.js';
import { formatCodecs } from '../../formats/format-codecs.js';
import type { SseEvent } from '../../formats/sse-event.js';
import { withTokenizerMargin } from '../../billing/reserve-margin.js';
import { countTokens } from '../../billing/token-count.js';
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
  private readonly decoded: CanonicalStreamEvent[] = [];
  private countedTokens = 0;
  private imageParts = 0;

  constructor(
    private readonly providerFormat: FormatName,
    /** The reserve's upper bound of the input, used when the provider said nothing of it. */
    private readonly inputTokens: number,
    /** Image models are charged per image: count the images delivered too. */
    private readonly countImages: boolean,
  ) {
    this.decoder = formatCodecs[providerFormat].createDecoder();
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
      try {
        this.decoder.push(event, this.decoded);
      } catch {
        // a malformed provider event adds nothing countable
      }
      for (const decoded of this.decoded) {
        if (decoded.type === 'text_delta' || decoded.type === 'reasoning_delta') text += JSON.parse(decoded.text) as string;
        else if (decoded.type === 'tool_call_delta') text += JSON.parse(decoded.arguments) as string;
      }
      this.decoded.length = 0;
    }
    this.held = [];
    this.heldBytes = 0;
    if (text.length > 0) this.countedTokens += countTokens(text);
  }
}

/** An image of an image model's chat stream (`delta.images[].image_url`). */
const IMAGE_PART = /"image_url"\s*:/g;
