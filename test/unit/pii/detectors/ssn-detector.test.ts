import { expect } from 'chai';
import { ssnDetector } from '../../../../src/pii/detectors/ssn-detector.js';
import { found } from './found.js';

describe('pii: US SSN detector', () => {
  it('finds numbers written AAA-GG-SSSS or with spaces', () => {
    expect(found(ssnDetector, 'SSN 123-45-6789; spouse 536 22 8899.')).to.deep.equal(['123-45-6789', '536 22 8899']);
  });

  it('leaves numbers the SSA never issues, mixed separators, bare digits and longer tokens', () => {
    for (const text of ['000-12-3456', '666-12-3456', '912-34-5678', '123-00-4567', '123-45-0000', '123-45 6789', '123456789', 'ref-123-45-6789', '2024-03-01']) {
      expect(found(ssnDetector, text), text).to.deep.equal([]);
    }
  });
});
