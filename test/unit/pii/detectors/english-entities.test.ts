import { expect } from 'chai';
import { parseSegment, SEGMENT_CHARS, segmentsOf } from '../../../../src/pii/detectors/english-entities.js';
import { personNames } from '../../../../src/pii/detectors/person-name-detector.js';
import { streetAddresses } from '../../../../src/pii/detectors/street-address-detector.js';

const names = (text: string) => personNames(parseSegment({ text, start: 0 })).map((span) => text.slice(span.start, span.end));
const addresses = (text: string) => streetAddresses(parseSegment({ text, start: 0 })).map((span) => text.slice(span.start, span.end));

describe('pii: names of people and street addresses (compromise)', () => {
  it('finds people by given and family name, without their honorific or the punctuation after them', () => {
    expect(names('Please send the invoice to John Smith, then ask Dr. Emily Chen.')).to.deep.equal(['John Smith', 'Emily Chen']);
    expect(names('Contact Li Wei or Fatima Al-Sayed before Monday.')).to.deep.equal(['Li Wei', 'Fatima Al-Sayed']);
  });

  it('finds street addresses that start with a house number', () => {
    expect(addresses('Ship to 42 Baker Street, London, or 1600 Pennsylvania Avenue.')).to.deep.equal(['42 Baker Street', '1600 Pennsylvania Avenue']);
    expect(addresses('We meet at 221B Baker St at noon.')).to.deep.equal(['221B Baker St']);
  });

  it('leaves text without people or addresses: code, versions, order numbers, a street named alone', () => {
    for (const text of ['The function parseUserName returns the first name.', 'Version 2.3.1 fixed order 55123 at 10:42.', 'He lives on Maple Drive near the lake.', 'Run npm install, then start the server on port 8080.']) {
      expect([...names(text), ...addresses(text)], text).to.deep.equal([]);
    }
  });

  it('parses a long text in segments that end on a boundary, with offsets in the whole text', () => {
    const sentence = 'Nothing to see here at all. ';
    const text = `${sentence.repeat(Math.ceil((SEGMENT_CHARS * 2) / sentence.length))}Then John Smith wrote.`;
    const segments = segmentsOf(text);
    expect(segments.length).to.be.greaterThan(2);
    expect(segments.map((segment) => segment.text).join('')).to.equal(text);
    for (const segment of segments.slice(0, -1)) expect(segment.text.length).to.be.at.most(SEGMENT_CHARS).and.satisfy((length: number) => segment.text.endsWith(' ') || length === 0);
    const last = segments.at(-1)!;
    const found = personNames(parseSegment(last)).map((span) => text.slice(span.start, span.end));
    expect(found).to.deep.equal(['John Smith']);
  });
});
