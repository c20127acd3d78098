import { expect } from 'chai';
import { newWebhookSecret, signedHeaders, signWebhook, verifyWebhook } from '../../../src/alerts/standard-webhooks.js';

/**
 * The Standard Webhooks scheme, checked against the vectors its reference library publishes
 * (standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts): the secret
 * `whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw`, the message `msg_p5jXN8AQM9LWM0D4loKWxJek` at 1614265330 with
 * the body `{"test": 2432232314}` signs as `v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=`.
 */
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const AT = new Date(1614265330 * 1000);
const BODY = '{"test": 2432232314}';
const SIGNATURE = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

describe('Standard Webhooks signatures', () => {
  it('signs the published vector', () => {
    expect(signWebhook(SECRET, ID, AT, BODY)).to.equal(SIGNATURE);
    // the scheme's libraries take the secret with or without its prefix
    expect(signWebhook(SECRET.slice('whsec_'.length), ID, AT, BODY)).to.equal(SIGNATURE);
    expect(signedHeaders(SECRET, ID, AT, BODY)).to.deep.equal({ 'webhook-id': ID, 'webhook-timestamp': '1614265330', 'webhook-signature': SIGNATURE });
  });

  it('verifies the vector within the tolerance, among other signatures, and nothing else', () => {
    const headers = { 'webhook-id': ID, 'webhook-timestamp': '1614265330', 'webhook-signature': SIGNATURE };
    const within = new Date(AT.getTime() + 299_000);
    verifyWebhook(SECRET, headers, BODY, within);
    verifyWebhook(SECRET, { ...headers, 'webhook-signature': `v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,x ${SIGNATURE}` }, BODY, within);
    expect(() => verifyWebhook(SECRET, headers, '{"test": 2432232315}', within)).to.throw('no matching signature');
    expect(() => verifyWebhook(SECRET, { ...headers, 'webhook-id': 'msg_other' }, BODY, within)).to.throw('no matching signature');
    expect(() => verifyWebhook(SECRET, { ...headers, 'webhook-signature': SIGNATURE.slice(0, 8) }, BODY, within)).to.throw('no matching signature');
    expect(() => verifyWebhook(SECRET, { ...headers, 'webhook-signature': 'v1,' }, BODY, within)).to.throw('no matching signature');
    expect(() => verifyWebhook(SECRET, headers, BODY, new Date(AT.getTime() + 301_000))).to.throw('too old or too new');
    expect(() => verifyWebhook(SECRET, headers, BODY, new Date(AT.getTime() - 301_000))).to.throw('too old or too new');
    expect(() => verifyWebhook(SECRET, { ...headers, 'webhook-timestamp': 'hello' }, BODY, within)).to.throw('not a number');
    expect(() => verifyWebhook(SECRET, { 'webhook-id': ID, 'webhook-timestamp': '1614265330' }, BODY, within)).to.throw('missing');
  });

  it('makes secrets of 24 random bytes that sign and verify', () => {
    const secret = newWebhookSecret();
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(newWebhookSecret()).to.not.equal(secret);
    const now = new Date();
    verifyWebhook(secret, signedHeaders(secret, 'msg_1', now, BODY), BODY, now);
  });
});
