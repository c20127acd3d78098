import { expect } from 'chai';
import { ibanDetector } from '../../../../src/pii/detectors/iban-detector.js';
import { found } from './found.js';

describe('pii: IBAN detector', () => {
  it('finds IBANs in electronic and grouped form, cut at the country length', () => {
    const text = 'Pay DE89370400440532013000 or GB29 NWBK 6016 1331 9268 19 TODAY, FR14 2004 1010 0505 0001 3M02 606.';
    expect(found(ibanDetector, text)).to.deep.equal(['DE89370400440532013000', 'GB29 NWBK 6016 1331 9268 19', 'FR14 2004 1010 0505 0001 3M02 606']);
  });

  it('leaves near misses: a wrong check digit, a wrong length, unknown countries, references in capitals', () => {
    for (const text of ['DE89370400440532013001', 'DE8937040044053201300', 'XX89370400440532013000', 'ORDER12345678901234', 'SKU AB12 CDEF 3456 7890']) {
      expect(found(ibanDetector, text), text).to.deep.equal([]);
    }
  });
});
