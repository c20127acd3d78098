import { expect } from 'chai';
import { ipAddressDetector } from '../../../../src/pii/detectors/ip-address-detector.js';
import { found } from './found.js';

describe('pii: IP address detector', () => {
  it('finds IPv4 and IPv6 addresses, compressed, full and with an embedded IPv4', () => {
    const text = 'from 203.0.113.42 and 10.0.0.1, then 2001:db8::8a2e:370:7334, fe80::1ff:fe23:4567:890a%eth0, 2001:0db8:85a3:0000:0000:8a2e:0370:7334 and ::ffff:192.0.2.128.';
    expect(found(ipAddressDetector, text)).to.deep.equal(['203.0.113.42', '10.0.0.1', '2001:db8::8a2e:370:7334', 'fe80::1ff:fe23:4567:890a%eth0', '2001:0db8:85a3:0000:0000:8a2e:0370:7334', '::ffff:192.0.2.128']);
  });

  it('leaves near misses: versions, out-of-range parts, times, MAC addresses, code', () => {
    for (const text of ['v1.2.3.4', 'version 1.2.3.4', 'release 2.0.0.1', '1.2.3', '10.0.19041.1', '256.1.1.1', 'at 10:42:17', '00:1A:2B:3C:4D:5E', 'a[1::2]', 'std::vector<int>', 'Foo::Bar::baz', 'price 1.299.999.00']) {
      expect(found(ipAddressDetector, text), text).to.deep.equal([]);
    }
  });
});
