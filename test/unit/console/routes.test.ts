import { expect } from 'chai';
import { href, parseRoute, requestsHref } from '../../../src/console/routes.js';

describe('console routes', () => {
  it('opens on the overview, and reads every page from the fragment', () => {
    expect(parseRoute('')).to.deep.equal({ page: 'overview' });
    expect(parseRoute('#/nowhere')).to.deep.equal({ page: 'overview' });
    expect(parseRoute('#/organizations')).to.deep.equal({ page: 'organizations' });
    expect(parseRoute('#/organizations/org_1/keys')).to.deep.equal({ page: 'organization', orgId: 'org_1', tab: 'keys' });
    expect(parseRoute('#/models')).to.deep.equal({ page: 'models' });
    expect(parseRoute('#/projections')).to.deep.equal({ page: 'projections' });
  });

  it("keeps the request log's filters in the fragment, and no other parameter", () => {
    const filter = { status: 'error', from: '2026-11-20T10:00:00Z', key_id: 'key_1', request: 'gen-abc' };
    expect(parseRoute(requestsHref(undefined, filter))).to.deep.equal({ page: 'requests', filter });
    expect(parseRoute(requestsHref('org_1', { model: 'openai/gpt-4o-mini' }))).to.deep.equal({ page: 'organization', orgId: 'org_1', tab: 'requests', filter: { model: 'openai/gpt-4o-mini' } });
    expect(parseRoute('#/requests?token=secret&status=open')).to.deep.equal({ page: 'requests', filter: { status: 'open' } });
    expect(href({ page: 'requests', filter: { status: '' } })).to.equal('#/requests');
  });
});
