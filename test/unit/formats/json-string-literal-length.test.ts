import { expect } from 'chai';
import { fromJsonLiteral, literalBeforeTail, matchLiteralAt } from '../../../src/formats/json-string-literal.js';

/** Beyond the length up to which matchLiteralAt uses the single regex. */
const LONG = 2 ** 20 + 16;

describe('formats: JSON string literals of any length', () => {
  const matcher = literalBeforeTail(String.raw`\}\}`);

  it('answers as for short data once the literal is too long for the single regex', () => {
    const padding = 'p'.repeat(LONG);
    const accepted = ['x:"a \\"b\\" \\u00e9 😀\\n"}}', 'x:""}}'];
    const refused = ['x:"a","b":"c"}}', 'x:"a\\x"}}', 'x:"a\nb"}}', 'x:"a"}}}', 'x:"a"} }', 'x:"unterminated}}', 'x:"a\\u00g0"}}', 'x:a"}}'];
    for (const data of accepted) {
      const short = matchLiteralAt(matcher, data, 2);
      const long = matchLiteralAt(matcher, data.replace(':"', `:"${padding}`), 2);
      expect(long, data).to.equal(short!.replace('"', `"${padding}`));
    }
    for (const data of refused) {
      expect(matchLiteralAt(matcher, data, 2), data).to.equal(undefined);
      const long = data.includes(':"') ? data.replace(':"', `:"${padding}`) : `${data}${padding}`;
      expect(matchLiteralAt(matcher, long, 2), `long ${data}`).to.equal(undefined);
    }
  });

  it('matches a 16-million-character delta (the single regex throws RangeError from about 10 million) and long runs of escapes', () => {
    for (const body of ['a'.repeat(16_000_000), '\\n'.repeat(4_000_000), 'ab\\u00e9'.repeat(1_000_000)]) {
      const literal = matchLiteralAt(matcher, `x:"${body}"}}`, 2);
      expect(literal?.length).to.equal(body.length + 2);
      expect(matchLiteralAt(matcher, `x:"${body}"} }`, 2)).to.equal(undefined);
    }
    expect(fromJsonLiteral(matchLiteralAt(matcher, `x:"${'\\n'.repeat(LONG)}"}}`, 2)!)).to.equal('\n'.repeat(LONG));
  });
});
