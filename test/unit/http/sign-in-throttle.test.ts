import { expect } from 'chai';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { SIGN_IN_FAILURES_ALLOWED, SIGN_IN_WINDOW_MS, SignInThrottle } from '../../../src/http/sign-in-throttle.js';

describe('failed sign-ins per client address', () => {
  let now = 1_000_000;
  const throttle = () => new SignInThrottle(undefined, () => now);
  const refusal = (subject: SignInThrottle, address: string) => {
    try {
      subject.check(address);
      return undefined;
    } catch (error) {
      return error as GatewayError;
    }
  };

  it('refuses an address with 429 and an honest Retry-After once it used its tries, and no other address', () => {
    const subject = throttle();
    for (let attempt = 0; attempt < SIGN_IN_FAILURES_ALLOWED; attempt++) {
      expect(refusal(subject, '10.0.0.1'), `try ${attempt + 1}`).to.equal(undefined);
      subject.failed('10.0.0.1', 'console sign-in');
      now += 1_000;
    }
    const refused = refusal(subject, '10.0.0.1')!;
    expect({ code: refused.code, status: refused.status }).to.deep.equal({ code: 'rate_limit_exceeded', status: 429 });
    // the first failure was 10 s ago: it leaves the window in 50 s
    expect(refused.retryAfterSeconds).to.equal(SIGN_IN_WINDOW_MS / 1_000 - SIGN_IN_FAILURES_ALLOWED);
    expect(refusal(subject, '10.0.0.2')).to.equal(undefined);
    now += refused.retryAfterSeconds! * 1_000;
    expect(refusal(subject, '10.0.0.1'), 'once the oldest failure is a minute old').to.equal(undefined);
  });

  it('forgets an address\'s failures when it signs in with the right token', () => {
    const subject = throttle();
    for (let attempt = 0; attempt < SIGN_IN_FAILURES_ALLOWED - 1; attempt++) subject.failed('10.0.0.3', 'admin API');
    subject.succeeded('10.0.0.3');
    subject.failed('10.0.0.3', 'admin API');
    expect(refusal(subject, '10.0.0.3')).to.equal(undefined);
  });
});
