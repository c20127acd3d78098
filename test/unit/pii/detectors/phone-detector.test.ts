import { expect } from 'chai';
import { phoneDetector } from '../../../../src/pii/detectors/phone-detector.js';
import { found } from './found.js';

describe('pii: phone detector', () => {
  it('finds international numbers, with + or 00, whatever the separators', () => {
    const text = 'Call +44 20 7946 0958, +1 (415) 555-2671, +49 30 901820, 0033 1 42 68 53 00 or +81-3-3224-9999.';
    expect(found(phoneDetector, text)).to.deep.equal(['+44 20 7946 0958', '+1 (415) 555-2671', '+49 30 901820', '0033 1 42 68 53 00', '+81-3-3224-9999']);
  });

  it('finds national numbers: North American and trunk-0 formats', () => {
    expect(found(phoneDetector, 'office (415) 555-2671, cell 212-555-0147, fax 303.555.0123')).to.deep.equal(['(415) 555-2671', '212-555-0147', '303.555.0123']);
    expect(found(phoneDetector, 'London 020 7946 0958, Paris 01 42 68 53 00, Berlin 030 901820')).to.deep.equal(['020 7946 0958', '01 42 68 53 00', '030 901820']);
  });

  it('leaves near misses: order numbers, timestamps, dates, versions, prices, invalid numbers', () => {
    for (const text of [
      'order 5551234567 shipped',
      'at 2024-03-01 10:42:17',
      'on 01-02-2024',
      'version 1.2.3 and 10.0.19041',
      'total $1,299.99',
      'ticket #4155552671',
      'id 123-456-7890', // area code 123 does not exist
      '+1 555 555 5555 5555 5555',
      'unix time 1700000000',
    ]) {
      expect(found(phoneDetector, text), text).to.deep.equal([]);
    }
  });
});
