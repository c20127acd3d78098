import { expect } from 'chai';
import { chatEndpoint } from '../../../../src/endpoints/text/text-endpoints.js';
import { authenticateStep } from '../../../../src/pipeline/steps/authenticate-step.js';
import { MemoryConnection } from '../../../support/memory-connection.js';
import { openPipelineCore, type PipelineCore } from '../../../support/pipeline-core.js';
import { ScriptedProvider } from '../../../support/scripted-provider.js';
import { received } from '../../../support/pipeline-stages.js';

describe('pipeline step: authenticate (real access directory on Postgres)', function () {
  this.timeout(30_000);
  let pipeline: PipelineCore;
  before(async () => {
    pipeline = await openPipelineCore('step_auth', new ScriptedProvider());
  });
  after(() => pipeline?.close());

  const authenticate = (headers: Record<string, string>) => authenticateStep(pipeline.deps, received(chatEndpoint, new MemoryConnection(headers)));

  it('finds the caller by Authorization: Bearer or x-api-key, with the space the request names', async () => {
    const { orgId, keyId, secret } = await pipeline.customer(0n);
    expect(authenticate({ authorization: `Bearer ${secret}` }).caller.key.keyId).to.equal(keyId);
    expect(authenticate({ 'x-api-key': secret }).caller.organization.orgId).to.equal(orgId);
    const spaceId = await pipeline.core.commands.createSpace(orgId, { name: 'research' }, 'test');
    expect(authenticate({ authorization: `Bearer ${secret}`, 'x-service-space': spaceId }).caller.spaceId).to.equal(spaceId);
  });

  it('refuses no key, an unknown or revoked key (401), a blocked organization (403) and a space of no organization of the key (400)', async () => {
    const { orgId, keyId, secret } = await pipeline.customer(0n);
    expect(() => authenticate({})).to.throw().with.property('code', 'invalid_api_key');
    expect(() => authenticate({ authorization: 'Bearer sk-gw-unknown' })).to.throw().with.property('code', 'invalid_api_key');
    expect(() => authenticate({ authorization: `Bearer ${secret}`, 'x-service-space': 'spc_other' })).to.throw().with.property('code', 'invalid_space');
    await pipeline.core.commands.changeOrganization(orgId, { status: 'blocked' }, 'test');
    expect(() => authenticate({ authorization: `Bearer ${secret}` })).to.throw().with.property('code', 'account_blocked');
    await pipeline.core.commands.changeOrganization(orgId, { status: 'active' }, 'test');
    await pipeline.core.commands.revokeKey(keyId, 'test');
    expect(() => authenticate({ authorization: `Bearer ${secret}` })).to.throw().with.property('message', 'the API key is revoked');
  });
});
