import { expect } from 'chai';
import { hashKeySecret } from '../../../src/access/key-secret.js';
import { deterministicUuid } from '../../../src/ids/deterministic-uuid.js';

/**
 * Both hashes are stored: key hashes in the `key-…` streams (a key is found by the hash of the secret it
 * is presented with), event ids in the log (a retried append is recognised by them). A different byte
 * here would lock out every key issued before, or write a retried event twice. The expected values were
 * computed with coreutils, not with the code under test.
 */
describe('stored hashes', () => {
  it('a key secret hashes to the hex SHA-256 of its UTF-8 bytes', () => {
    // printf 'sk-gw-abc' | sha256sum
    expect(hashKeySecret('sk-gw-abc')).to.equal('4981e46da66e675def48e4315e39b71e01f8f2b2a2081c51753b021f2c177a39');
  });

  it('an event id is the SHA-1 of "model-gateway/events", a NUL and the name, laid out as a version 5 UUID', () => {
    // printf 'model-gateway/events\0account-org_1:FundsReserved:gen-abc' | sha1sum → fe924452ec5e5fba93f516315a1413ae…:
    // byte 6 0x5f keeps 5 as its high nibble, byte 8 0x93 already has the variant bits 10.
    expect(deterministicUuid('account-org_1:FundsReserved:gen-abc')).to.equal('fe924452-ec5e-5fba-93f5-16315a1413ae');
    // printf 'model-gateway/events\0account-ö:ReservationSettled:gen-x' | sha1sum → d60470f2d85d0b8ee0c9bc769c566f6d…:
    // byte 6 0x0b becomes 0x5b (version 5), byte 8 0xe0 becomes 0xa0 (variant 10); ö is two UTF-8 bytes.
    expect(deterministicUuid('account-ö:ReservationSettled:gen-x')).to.equal('d60470f2-d85d-5b8e-a0c9-bc769c566f6d');
  });
});
