import { expect } from 'chai';
import type { Deployment } from '../../../src/catalog/catalog.js';
import { isRetryableStatus, pickByWeight, retryAfterMs } from '../../../src/pipeline/attempts.js';
import type { PricedCandidate } from '../../../src/pipeline/candidates.js';

const candidate = (id: string, weight: number) => ({ deployment: { id, weight } as Deployment }) as PricedCandidate;

describe('attempts: which deployment, which failures, how long to wait', () => {
  it('draws deployments by weight: 3 and 1 send the first three draws in four', () => {
    const pool = [candidate('a', 3), candidate('b', 1)];
    // a draw in [0, 1) scaled to the total weight 4: [0, 3) is a, [3, 4) is b
    const picked = [0, 0.25, 0.5, 0.74, 0.75, 0.99].map((draw) => pickByWeight(pool, () => draw)!.deployment.id);
    expect(picked).to.deep.equal(['a', 'a', 'a', 'a', 'b', 'b']);
    expect(pickByWeight([], () => 0)).to.equal(undefined);
  });

  it('retries 429 and every 5xx, never another 4xx', () => {
    expect([400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504, 529].filter(isRetryableStatus)).to.deep.equal([429, 500, 502, 503, 504, 529]);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    expect(retryAfterMs('7', now)).to.equal(7_000);
    expect(retryAfterMs('0.5', now)).to.equal(500);
    expect(retryAfterMs('Thu, 26 Nov 2026 12:00:03 GMT', now)).to.equal(3_000);
    expect(retryAfterMs(undefined, now)).to.equal(0);
    expect(retryAfterMs('soon', now)).to.equal(0);
  });
});
