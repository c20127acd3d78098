import { expect } from 'chai';
import { fromJsonLiteral, joinJsonLiterals, literalBeforeTail, matchLiteralAt, toJsonLiteral } from '../../../src/formats/json-string-literal.js';

describe('formats: JSON string literals on the hot path', () => {
  const matcher = literalBeforeTail(String.raw`\}\}`);

  it('accepts exactly one well-formed literal followed by the tail', () => {
    expect(matchLiteralAt(matcher, 'x:"a \\"b\\" \\u00e9 😀\\n"}}', 2)).to.equal('"a \\"b\\" \\u00e9 😀\\n"');
    expect(matchLiteralAt(matcher, 'x:""}}', 2)).to.equal('""');
  });

  it('refuses what would let a forged or broken payload through', () => {
    for (const data of ['x:"a","b":"c"}}', 'x:"a\\x"}}', 'x:"a\nb"}}', 'x:"a"}}}', 'x:"a"} }', 'x:"unterminated}}']) {
      expect(matchLiteralAt(matcher, data, 2), data).to.equal(undefined);
    }
  });

  it('joins literals into the literal of the joined text, surrogate pairs split across fragments included', () => {
    const parts = ['Hel', 'lo "w', '\ud83d', '\ude00', '\n'].map(toJsonLiteral);
    expect(fromJsonLiteral(joinJsonLiterals(parts))).to.equal('Hello "w😀\n');
  });
});
