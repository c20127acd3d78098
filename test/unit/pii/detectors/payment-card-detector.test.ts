import { expect } from 'chai';
import { paymentCardDetector } from '../../../../src/pii/detectors/payment-card-detector.js';
import { found } from './found.js';

describe('pii: payment card detector', () => {
  it('finds card numbers of the networks, whole or grouped, that pass Luhn', () => {
    const text = 'Visa 4111 1111 1111 1111, MC 5555-5555-5555-4444, Amex 378282246310005, Amex 3782 822463 10005, Discover 6011111111111117.';
    expect(found(paymentCardDetector, text)).to.deep.equal(['4111 1111 1111 1111', '5555-5555-5555-4444', '378282246310005', '3782 822463 10005', '6011111111111117']);
  });

  it('leaves near misses: a failed Luhn check, unknown prefixes, UUID groups, mixed separators, long references', () => {
    for (const text of [
      'card 4111 1111 1111 1112',
      'order 1234567812345670', // passes Luhn, but no network starts with 1
      'uuid 123e4567-e89b-12d3-a456-426614174000',
      '4111 1111-1111 1111',
      'ref 41111111111111110000',
      'invoice INV-4111111111111111',
      'amount 4111111111111111.50',
    ]) {
      expect(found(paymentCardDetector, text), text).to.deep.equal([]);
    }
  });
});
