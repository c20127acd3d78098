import { expect } from 'chai';
import { emailDetector } from '../../../../src/pii/detectors/email-detector.js';
import { found } from './found.js';

describe('pii: e-mail detector', () => {
  it('finds addresses with dots, plus tags, hyphens and subdomains, trimmed of the punctuation around them', () => {
    expect(found(emailDetector, 'Write to jane.doe+billing@mail.example.co.uk, or (ops-team@corp-x.io).')).to.deep.equal(['jane.doe+billing@mail.example.co.uk', 'ops-team@corp-x.io']);
    expect(found(emailDetector, 'a@b.cd and x_y%z@sub.domain.org.')).to.deep.equal(['a@b.cd', 'x_y%z@sub.domain.org']);
  });

  it('leaves near misses: mentions, package versions, hosts without a dot, a bare @', () => {
    for (const text of ['ping @alice on the thread', 'install left-pad@1.3.0 and @scope/pkg@2.0.1', 'ssh root@localhost', 'price @ 3.50 each', 'a @ b.com', 'user@.com', 'user@example.c0m']) {
      expect(found(emailDetector, text), text).to.deep.equal([]);
    }
  });
});
