import { expect } from 'chai';
import { nationalIdDetector } from '../../../../src/pii/detectors/national-id-detector.js';
import { found } from './found.js';

describe('pii: national identity number detector', () => {
  it('finds Canadian SINs, Spanish DNIs and NIEs, and Brazilian CPFs whose check digits hold', () => {
    expect(found(nationalIdDetector, 'SIN 130 692 544, DNI 12345678Z, NIE X1234567L, CPF 111.444.777-35')).to.deep.equal(['130 692 544', '12345678Z', 'X1234567L', '111.444.777-35']);
  });

  it('leaves lookalikes whose check digits fail, and other shapes', () => {
    for (const text of ['SIN 130 692 545', 'SIN 046 454 286', 'DNI 12345678A', 'NIE X1234567A', 'CPF 111.444.777-36', 'CPF 111.111.111-11', 'version 123.456.789-09a', 'part 12345678-Z9']) {
      expect(found(nationalIdDetector, text), text).to.deep.equal([]);
    }
  });
});
