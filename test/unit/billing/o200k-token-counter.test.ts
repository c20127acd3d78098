import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { countTokens as referenceCount } from 'gpt-tokenizer';
import { countTokens, LONGEST_MERGED_PIECE } from '../../../src/billing/o200k-token-counter.js';

/** gpt-tokenizer's o200k_base count with special-token text as plain text: what the gateway's counts must equal. */
function reference(text: string): number {
  return referenceCount(text, { disallowedSpecial: new Set() });
}

/** A seeded generator: the random texts are the same every run, so a failure can be reproduced. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

describe('token count (o200k_base)', () => {
  it('counts known texts as OpenAI does', () => {
    // counts of the o200k_base encoding, written down as literals
    expect(countTokens('')).to.equal(0);
    expect(countTokens('hello world')).to.equal(2);
    expect(countTokens('Say hello in one short sentence.')).to.equal(7);
    expect(countTokens('<|endoftext|>')).to.equal(7); // plain text ('<', '|', 'endo', …), not the one special token
  });

  it('equals the reference on every document of the repository', () => {
    const documents = readdirSync('docs').filter((name) => name.endsWith('.md'));
    expect(documents.length).to.be.greaterThan(3);
    for (const name of documents) {
      const text = readFileSync(`docs/${name}`, 'utf8');
      expect(countTokens(text), name).to.equal(reference(text));
    }
  });

  it('equals the reference on texts that exercise the split and the merges', () => {
    const texts = [
      "I'm here, you're there. DON'T! We'LL see; they'VE gone",
      '  multiple   spaces\n\n\tand tabs \r\n\r\n  trailing   ',
      '日本語のテキストです。中文文本。한국어 텍스트',
      'emoji 👩‍👩‍👧 🎉🎉🎉 flags 🇫🇷🇩🇪',
      'combining e\u0301 a\u0300 ligature ﬁ ﬂ',
      'عربي نص עברית Ελληνικά Русский текст',
      'x'.repeat(5_000),
      '1234567890123 3.14159 1,000,000',
      'https://example.com/path/to/file.json?q=1&r=2#frag',
      'function f(x) {\n  return x * 2; // twice\n}\n',
      '{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}',
      '\u0000\u0001\u007f\u0080\u00ff\uffff',
    ];
    for (const text of texts) expect(countTokens(text), JSON.stringify(text.slice(0, 40))).to.equal(reference(text));
  });

  it('equals the reference on lone surrogates, which UTF-8 can only carry as U+FFFD', () => {
    for (const text of ['a\ud800b', '\udc00x', 'end\ud83d', '\ud83d\ud83d\ude00', ' \udfff\udfff ', '\ufffd\ud800']) {
      expect(countTokens(text), JSON.stringify(text)).to.equal(reference(text));
    }
    // Every token that holds U+FFFD, written with a lone surrogate in its place: the reference looks whole
    // pieces up by their string (which never matches such a piece) and merges them; this counter looks
    // their bytes up, which must come to the same count.
    const vocabulary = readFileSync('node_modules/gpt-tokenizer/data/o200k_base.tiktoken', 'latin1').split('\n');
    let withReplacement = 0;
    for (const line of vocabulary) {
      const token = Buffer.from(line.slice(0, line.indexOf(' ')), 'base64').toString('utf8');
      if (!token.includes('\ufffd')) continue;
      const text = token.replaceAll('\ufffd', '\ud800');
      expect(countTokens(text), JSON.stringify(text)).to.equal(reference(text));
      withReplacement++;
    }
    expect(withReplacement).to.be.greaterThan(1_000);
  });

  it('equals the reference on 20,000 random texts', () => {
    const alphabet = ['a', 'b', 'Z', 'Q', ' ', '  ', '\n', '\r\n', '\t', '.', ',', '!', "'s", "'LL", 'é', 'ß', 'ñ', '日', '本', '😀', '👍🏽', '\ud800', '\udfff', '1', '23', '456', '-', '/', '_', '<|', '|>', 'ا', 'ب', 'ё', 'Ж', '\u0301', 'ﬁ', 'the', ' of', 'ing', 'tion', '\u00a0', '\u2028', '€'];
    const random = seededRandom(20261125);
    let compared = 0;
    for (let text = 0; text < 20_000; text++) {
      let value = '';
      const parts = 1 + Math.floor(random() * 40);
      for (let part = 0; part < parts; part++) value += alphabet[Math.floor(random() * alphabet.length)];
      expect(countTokens(value), JSON.stringify(value)).to.equal(reference(value));
      compared++;
    }
    expect(compared).to.equal(20_000);
  });

  it('equals the reference on long pieces (one word of hundreds to thousands of bytes, merged through a heap)', () => {
    const random = seededRandom(1125);
    const letters = 'abcdefghijklmnopqrstuvwxyzéßñ日本';
    for (let text = 0; text < 200; text++) {
      const alphabet = letters.slice(0, 2 + Math.floor(random() * (letters.length - 1)));
      const length = 200 + Math.floor(random() * 2_800);
      let value = '';
      for (let character = 0; character < length; character++) value += alphabet[Math.floor(random() * alphabet.length)];
      expect(countTokens(value), `${length} characters of ${alphabet}`).to.equal(reference(value));
    }
    for (const value of ['x'.repeat(5_000), 'ab'.repeat(3_000), 'aab'.repeat(2_000), 'é'.repeat(3_000)]) {
      expect(countTokens(value), value.slice(0, 6)).to.equal(reference(value));
    }
  });

  it('counts a piece of more than a mebibyte as its length in bytes, at once', () => {
    // One word of 1,048,577 bytes: above the longest piece merged, so its bytes, an upper bound of any count.
    expect(LONGEST_MERGED_PIECE).to.equal(1_048_576);
    expect(countTokens('ab'.repeat(524_288) + 'c')).to.equal(1_048_577);
    // 600,000 characters of two bytes each: 1,200,000 bytes, above the limit although the characters are not
    expect(countTokens('é'.repeat(600_000))).to.equal(1_200_000);
    // and 1,100,000 of them, counted without being encoded: 2,200,000 bytes, not 1,100,000 characters
    expect(countTokens('é'.repeat(1_100_000))).to.equal(2_200_000);
    // the same text with a space every 1,000 characters is merged piece by piece: far fewer tokens
    const spaced = ('ab'.repeat(500) + ' ').repeat(1_048);
    expect(countTokens(spaced)).to.be.below(400_000);
  });
});
