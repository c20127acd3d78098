import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';

/**
 * Counts tokens the way OpenAI's o200k_base encoding splits text: the count of every token the gateway
 * makes itself (the input of a reserve, the output of a stream without usage; billing/reserve-margin.ts
 * raises it to an upper bound). Counts equal gpt-tokenizer's `countTokens(text, { disallowedSpecial: new
 * Set() })`, special-token text counted as plain text (test/unit/billing/o200k-token-counter.test.ts holds
 * them to it on a corpus and on random text), but for one case: a single piece of more than a mebibyte without a
 * space or punctuation mark is counted as its length in bytes (`mergedParts`). The merge itself never takes
 * more than O(n log n): gpt-tokenizer's is quadratic, and one such word in a request body held the event
 * loop for minutes.
 *
 * Why not gpt-tokenizer itself: it keeps its 200,000 tokens as JavaScript strings in an array and a Map,
 * 35–45 MB of resident memory for a table that only ever answers "which rank has these bytes", and a
 * merge cache of up to 100,000 pieces on top. Here the same vocabulary (the `.tiktoken` file gpt-tokenizer
 * ships) lives in three typed arrays, about 5 MB: every token's bytes end to end, where each one starts,
 * and an open-addressing hash table from bytes to rank.
 */

/** Bytes of every token, end to end, in rank order. */
let tokenBytes: Uint8Array;
/** Token `rank` is `tokenBytes[tokenStarts[rank] .. tokenStarts[rank + 1])`. */
let tokenStarts: Uint32Array;
/** Open addressing, linear probing: rank + 1 of the token whose bytes hash here, 0 for an empty slot. */
let slots: Int32Array;
let slotMask: number;

const require = createRequire(import.meta.url);

function loadVocabulary(): void {
  // one line a token: the bytes in base64, a space, the rank (consecutive from 0)
  const file = readFileSync(require.resolve('gpt-tokenizer/data/o200k_base.tiktoken'));
  const bytes = Buffer.alloc(file.length); // base64 is longer than the bytes it holds
  const starts: number[] = [];
  let end = 0;
  for (let lineStart = 0; lineStart < file.length; ) {
    const space = file.indexOf(SPACE, lineStart);
    const lineEnd = file.indexOf(NEWLINE, space);
    const rank = Number(file.toString('latin1', space + 1, lineEnd === -1 ? file.length : lineEnd));
    if (rank !== starts.length) throw new Error(`o200k_base.tiktoken: rank ${rank} where ${starts.length} was next`);
    starts.push(end);
    end += bytes.write(file.toString('latin1', lineStart, space), end, 'base64');
    lineStart = lineEnd === -1 ? file.length : lineEnd + 1;
  }
  starts.push(end);
  tokenBytes = new Uint8Array(bytes.subarray(0, end)); // a copy of the exact size; the scratch buffer goes
  tokenStarts = Uint32Array.from(starts);
  const tokens = starts.length - 1;
  let size = 1;
  while (size < tokens * 2) size *= 2; // at most half full: probes stay short
  slots = new Int32Array(size);
  slotMask = size - 1;
  for (let rank = 0; rank < tokens; rank++) {
    let slot = hash(tokenBytes, tokenStarts[rank]!, tokenStarts[rank + 1]!) & slotMask;
    while (slots[slot] !== 0) slot = (slot + 1) & slotMask;
    slots[slot] = rank + 1;
  }
}

const SPACE = 0x20;
const NEWLINE = 0x0a;

/** FNV-1a over `bytes[start .. end)`. */
function hash(bytes: Uint8Array, start: number, end: number): number {
  let value = 0x811c9dc5;
  for (let index = start; index < end; index++) value = Math.imul(value ^ bytes[index]!, 0x01000193);
  return value >>> 0;
}

/** The rank of the token whose bytes are `bytes[start .. end)`, or -1 when no token has them. */
function rankOf(bytes: Uint8Array, start: number, end: number): number {
  const length = end - start;
  let slot = hash(bytes, start, end) & slotMask;
  for (;;) {
    const entry = slots[slot]!;
    if (entry === 0) return -1;
    const tokenStart = tokenStarts[entry - 1]!;
    if (tokenStarts[entry]! - tokenStart === length && sameBytes(bytes, start, tokenStart, length)) return entry - 1;
    slot = (slot + 1) & slotMask;
  }
}

function sameBytes(bytes: Uint8Array, start: number, tokenStart: number, length: number): boolean {
  for (let offset = 0; offset < length; offset++) if (bytes[start + offset] !== tokenBytes[tokenStart + offset]) return false;
  return true;
}

/** Up to this many bytes a piece is merged by scanning (faster than the heap for short pieces). */
const SCAN_MERGE_MAX_BYTES = 256;
/** A longer piece is counted as its length in bytes (`mergedParts`). */
export const LONGEST_MERGED_PIECE = 1024 * 1024;

// Scratch space of the piece being counted: its UTF-8 bytes, where its parts start and the rank of each
// part merged with the next. Counting is synchronous, so one set serves every call.
const SPLIT = new RegExp(O200K_TOKEN_SPLIT_REGEX); // global: exec walks the text from lastIndex
let pieceBytes = new Uint8Array(1024);
const partStarts = new Int32Array(SCAN_MERGE_MAX_BYTES + 1);
const pairRanks = new Float64Array(SCAN_MERGE_MAX_BYTES + 1);

/** How many tokens OpenAI's o200k_base encoding makes of `text`. */
export function countTokens(text: string): number {
  if (tokenBytes === undefined) loadVocabulary();
  SPLIT.lastIndex = 0;
  let count = 0;
  for (let match = SPLIT.exec(text); match !== null; match = SPLIT.exec(text)) count += countPiece(match[0]);
  return count;
}

/** Loads the vocabulary now (at start) rather than at the first request that counts tokens. */
export function loadTokenCounter(): void {
  if (tokenBytes === undefined) loadVocabulary();
}

/**
 * The tokens of one piece of the split: one when the whole piece is a token, else byte-pair merging of
 * its UTF-8 bytes (the adjacent pair whose merge has the lowest rank first, the leftmost of equal ranks).
 */
function countPiece(piece: string): number {
  // Longer than any merged piece even in ASCII: its bytes, without growing the scratch space (which stays)
  // to three times the length of a body's worth of one word.
  if (piece.length > LONGEST_MERGED_PIECE) return Buffer.byteLength(piece, 'utf8');
  if (pieceBytes.length < piece.length * 3) growScratch(piece.length * 3);
  const length = encodeUtf8(piece);
  if (rankOf(pieceBytes, 0, length) !== -1) return 1;
  return mergedParts(length);
}

/**
 * Writes `piece` as UTF-8 into `pieceBytes` (a lone surrogate as U+FFFD, as TextEncoder does) and returns
 * the length. In JavaScript rather than TextEncoder: pieces are a few bytes long, and the call into the
 * runtime cost more than the encoding.
 */
function encodeUtf8(piece: string): number {
  let length = 0;
  for (let index = 0; index < piece.length; index++) {
    let code = piece.charCodeAt(index);
    if (code < 0x80) {
      pieceBytes[length++] = code;
      continue;
    }
    if (code < 0x800) {
      pieceBytes[length++] = 0xc0 | (code >> 6);
      pieceBytes[length++] = 0x80 | (code & 0x3f);
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = piece.charCodeAt(index + 1); // NaN past the end
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        index++;
        pieceBytes[length++] = 0xf0 | (code >> 18);
        pieceBytes[length++] = 0x80 | ((code >> 12) & 0x3f);
        pieceBytes[length++] = 0x80 | ((code >> 6) & 0x3f);
        pieceBytes[length++] = 0x80 | (code & 0x3f);
        continue;
      }
      code = 0xfffd;
    }
    pieceBytes[length++] = 0xe0 | (code >> 12);
    pieceBytes[length++] = 0x80 | ((code >> 6) & 0x3f);
    pieceBytes[length++] = 0x80 | (code & 0x3f);
  }
  return length;
}

/**
 * Byte-pair merging of `pieceBytes[0 .. length)`: how many parts are left when no adjacent pair is a token.
 * A short piece (nearly every one) is merged by scanning for the lowest pair each time, as gpt-tokenizer
 * and tiktoken do. That is quadratic in the piece's length, and a piece can be megabytes long (a request
 * body of letters without a space is one piece): longer pieces go through a heap, in the same order.
 * A piece above LONGEST_MERGED_PIECE bytes is counted as its length in bytes, which no count exceeds (a
 * token is at least a byte): the merge's memory stays bounded, and no text a person or a model writes has
 * a megabyte between two spaces or punctuation marks.
 */
function mergedParts(length: number): number {
  if (length <= SCAN_MERGE_MAX_BYTES) return scanMerge(length);
  if (length <= LONGEST_MERGED_PIECE) return heapMerge(length);
  return length;
}

function scanMerge(length: number): number {
  let parts = length; // part i spans pieceBytes[partStarts[i] .. partStarts[i + 1])
  for (let index = 0; index <= length; index++) partStarts[index] = index;
  for (let index = 0; index < length; index++) pairRanks[index] = pairRank(index, parts);
  for (;;) {
    let lowest = Infinity;
    let at = -1;
    for (let index = 0; index < parts - 1; index++) {
      if (pairRanks[index]! < lowest) {
        lowest = pairRanks[index]!;
        at = index;
      }
    }
    if (at === -1) return parts;
    // parts at and at + 1 become one: drop the start of at + 1
    partStarts.copyWithin(at + 1, at + 2, parts + 1);
    pairRanks.copyWithin(at + 1, at + 2, parts);
    parts--;
    pairRanks[at] = pairRank(at, parts);
    if (at > 0) pairRanks[at - 1] = pairRank(at - 1, parts);
  }
}

/** Ranks are below 2^18 and starts below 2^20 (LONGEST_MERGED_PIECE): a heap key of rank × 2^32 + start is an exact integer in a double. */
const RANK_UNIT = 2 ** 32;

/**
 * The same merges as `scanMerge` in O(n log n): the parts are a linked list by the byte where each starts,
 * and a min-heap holds rank × 2^32 + start for each pair: the lowest rank first and, among equal ranks, the
 * lowest start, which is the leftmost pair, the one the scan takes. A pair that changed since it was pushed
 * (a neighbour merged) no longer has that rank at that start, and is skipped when it comes up.
 */
function heapMerge(length: number): number {
  const next = new Int32Array(length); // where the part after the one starting here starts (length: none)
  const previous = new Int32Array(length); // where the part before starts (-1: none)
  const alive = new Uint8Array(length); // 1 where a part starts
  for (let start = 0; start < length; start++) {
    next[start] = start + 1;
    previous[start] = start - 1;
    alive[start] = 1;
  }
  const rankAt = (start: number): number => {
    const second = next[start]!;
    return second >= length ? -1 : rankOf(pieceBytes, start, next[second]!);
  };
  const heap = new KeyHeap(length * 3); // one pair a byte at first, at most two more a merge
  const pushPair = (start: number) => {
    const rank = rankAt(start);
    if (rank !== -1) heap.push(rank * RANK_UNIT + start);
  };
  for (let start = 0; start < length - 1; start++) pushPair(start);
  let parts = length;
  for (let key = heap.pop(); key !== undefined; key = heap.pop()) {
    const start = key % RANK_UNIT;
    if (!alive[start] || rankAt(start) !== (key - start) / RANK_UNIT) continue; // changed since pushed
    const second = next[start]!;
    const after = next[second]!;
    alive[second] = 0;
    next[start] = after;
    if (after < length) previous[after] = start;
    parts--;
    pushPair(start);
    if (previous[start]! >= 0) pushPair(previous[start]!);
  }
  return parts;
}

/** A binary min-heap of numbers. */
class KeyHeap {
  private readonly keys: Float64Array;
  private size = 0;

  constructor(capacity: number) {
    this.keys = new Float64Array(capacity);
  }

  push(key: number): void {
    let index = this.size++;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (this.keys[parent]! <= key) break;
      this.keys[index] = this.keys[parent]!;
      index = parent;
    }
    this.keys[index] = key;
  }

  pop(): number | undefined {
    if (this.size === 0) return undefined;
    const top = this.keys[0]!;
    const last = this.keys[--this.size]!; // moves to the root's place and sinks
    let index = 0;
    for (;;) {
      let child = index * 2 + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && this.keys[child + 1]! < this.keys[child]!) child++;
      if (this.keys[child]! >= last) break;
      this.keys[index] = this.keys[child]!;
      index = child;
    }
    this.keys[index] = last;
    return top;
  }
}

/** The rank of parts `index` and `index + 1` merged, Infinity when that is no token (or there is no next part). */
function pairRank(index: number, parts: number): number {
  if (index + 1 >= parts) return Infinity;
  const rank = rankOf(pieceBytes, partStarts[index]!, partStarts[index + 2]!);
  return rank === -1 ? Infinity : rank;
}

function growScratch(bytes: number): void {
  pieceBytes = new Uint8Array(bytes);
}
