import { expect } from 'chai';
import { ClaimedSpans } from '../../../src/pii/claimed-spans.js';
import { phoneDetector } from '../../../src/pii/detectors/phone-detector.js';

describe('pii: spans claimed by better-ranked detectors', () => {
  const claimed = new ClaimedSpans([
    { kind: 'CARD', start: 40, end: 60 },
    { kind: 'EMAIL', start: 0, end: 10 },
    { kind: 'IBAN', start: 12, end: 50 },
  ]);

  it('tells whether a range overlaps any of them, in whatever order they were found', () => {
    expect(claimed.overlaps(5, 8)).to.equal(true);
    expect(claimed.overlaps(10, 12)).to.equal(false);
    expect(claimed.overlaps(55, 70)).to.equal(true);
    expect(claimed.overlaps(60, 70)).to.equal(false);
    expect(new ClaimedSpans([]).overlaps(0, 100)).to.equal(false);
  });

  it('keeps the phone detector from parsing again a number another detector took', () => {
    const text = 'call 020 7946 0958 now';
    expect(phoneDetector.find(text)).to.have.length(1);
    expect(phoneDetector.find(text, new ClaimedSpans([{ kind: 'SSN', start: 5, end: 18 }]))).to.deep.equal([]);
  });
});
