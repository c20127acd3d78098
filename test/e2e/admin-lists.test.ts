import { expect } from 'chai';
import { eventually } from '../support/eventually.js';
import { useGatewayHarness } from '../support/gateway-harness.js';

/** The admin routes the console reads: organizations and open reservations by page, spend per day and group. */
describe('admin API: organization list, open reservations, daily spend', function () {
  this.timeout(60_000);
  const harness = useGatewayHarness();
  const chat = (secret: string, model: string) =>
    fetch(`${harness().gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 100 }),
    });

  describe('GET /admin/v1/organizations', () => {
    it('pages through every organization, newest first, with has_more and after', async () => {
      const { admin } = harness();
      const created: string[] = [];
      for (const name of ['List one', 'List two', 'List three']) created.push((await admin.ok('POST', '/organizations', { name, pii_masking: name === 'List two' })).id);
      await admin.ok('POST', `/organizations/${created[0]}/credits`, { amount_usd: '3.50' });
      const seen: any[] = [];
      await eventually(async () => {
        seen.length = 0;
        let after: string | undefined;
        for (let pages = 0; pages < 1000; pages++) {
          const page = await admin.ok('GET', `/organizations?limit=2${after ? `&after=${after}` : ''}`);
          expect(page.object).to.equal('list');
          expect(page.data.length).to.be.at.most(2);
          seen.push(...page.data);
          if (!page.has_more) break;
          expect(page.last_id).to.equal(page.data.at(-1).id);
          after = page.last_id;
        }
        expect(seen.find((organization) => organization.id === created[0])?.balance_usd).to.equal('3.50');
      });
      const ids = seen.map((organization) => organization.id);
      expect(new Set(ids).size, 'no organization on two pages').to.equal(ids.length);
      const positions = created.map((id) => ids.indexOf(id));
      expect(positions.every((position) => position >= 0)).to.equal(true);
      expect([...positions].sort((a, b) => b - a)).to.deep.equal(positions);
      expect(seen[positions[1]!]).to.deep.include({ name: 'List two', status: 'active', pii_masking: true, balance_usd: '0.00', reserved_usd: '0.00', spend_limits: { daily_usd: null, monthly_usd: null } });
    });

    it('refuses a bad page size or an unknown parameter with 400 invalid_request', async () => {
      for (const query of ['limit=0', 'limit=101', 'limit=ten', 'page=2']) {
        const { status, body } = await harness().admin.call('GET', `/organizations?${query}`);
        expect(status, query).to.equal(400);
        expect(body.error.code).to.equal('invalid_request');
      }
    });
  });

  describe('GET /admin/v1/models', () => {
    it('lists every catalog model, whatever a key may use', async () => {
      const models = await harness().admin.ok('GET', '/models');
      expect(models.object).to.equal('list');
      const ids = models.data.map((model: { id: string }) => model.id);
      expect(ids).to.include.members(['openai/gpt-4o-mini', 'anthropic/claude-sonnet-4-5', 'local/llama', 'openai/text-embedding-3-small', 'openai/gpt-image-1']);
      expect(models.data.find((model: { id: string }) => model.id === 'openai/gpt-4o-mini')).to.deep.include({ category: 'text', pricing: { input_per_mtok: '0.15', output_per_mtok: '0.60', cached_input_per_mtok: '0.075', pii_masking_fee: '0.002' } });
      expect((await fetch(`${harness().gateway.url}/admin/v1/models`)).status).to.equal(401);
    });

    it('answers the same records as GET /v1/models does to a key that may use every model', async () => {
      const { secret } = await harness().customer('1');
      const forKey = await (await fetch(`${harness().gateway.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } })).json();
      const models = await harness().admin.ok('GET', '/models');
      expect(models).to.deep.equal(forKey);
      expect(models.data.find((model: { id: string }) => model.id === 'openai/gpt-4o-mini')).to.deep.include({
        object: 'model',
        owned_by: 'openai',
        context_length: 128000,
        max_output_tokens: 16384,
        capabilities: ['tools', 'vision', 'prompt_cache'],
      });
      expect(models.data.find((model: { id: string }) => model.id === 'openai/whisper-1')).to.deep.include({ category: 'speech', max_output_tokens: null, pricing: { per_audio_minute: '0.006' } });
    });
  });

  describe('GET /admin/v1/organizations/{org}/reservations', () => {
    it('lists a running request with its reserve, and nothing once it has ended', async () => {
      const { admin, openai } = harness();
      const { orgId, keyId, secret } = await harness().customer('5');
      let release!: () => void;
      openai.enqueue({ holdUntil: new Promise<void>((resolve) => (release = resolve)) });
      const running = chat(secret, 'openai/gpt-4o-mini');
      try {
        await eventually(async () => {
          const page = await admin.ok('GET', `/organizations/${orgId}/reservations`);
          expect(page.data).to.have.length(1);
          expect(page.data[0]).to.include({ object: 'reservation', organization_id: orgId, key_id: keyId, model: 'openai/gpt-4o-mini', type: 'text' });
          expect(page.data[0].reserved_usd).to.match(/^0\.\d+$/);
          expect(page.has_more).to.equal(false);
        });
      } finally {
        release();
        expect((await running).status).to.equal(200);
      }
      await eventually(async () => expect((await admin.ok('GET', `/organizations/${orgId}/reservations`)).data).to.deep.equal([]));
    });

    it('answers 404 resource_not_found for an unknown organization', async () => {
      const { status, body } = await harness().admin.call('GET', '/organizations/org_doesnotexist/reservations');
      expect(status).to.equal(404);
      expect(body.error.code).to.equal('resource_not_found');
    });
  });

  describe('GET /admin/v1/organizations/{org}/spend/daily', () => {
    it('sums settled spend per day and model, as the spend report does', async () => {
      const { admin, openai, anthropic } = harness();
      const { orgId, secret } = await harness().customer('5');
      openai.enqueue({ usage: { inputTokens: 1000, outputTokens: 500 } });
      anthropic.enqueue({ usage: { inputTokens: 1000, outputTokens: 100 } });
      expect((await chat(secret, 'openai/gpt-4o-mini')).status).to.equal(200);
      expect((await chat(secret, 'anthropic/claude-sonnet-4-5')).status).to.equal(200);
      const today = new Date().toISOString().slice(0, 10);
      // gpt-4o-mini: 1000 × 0.15 + 500 × 0.60 per million = 0.00015 + 0.0003 = 0.00045 USD
      // claude-sonnet-4-5: 1000 × 3.00 + 100 × 15.00 per million = 0.003 + 0.0015 = 0.0045 USD; total 0.00495
      await eventually(async () => {
        const daily = await admin.ok('GET', `/organizations/${orgId}/spend/daily?from=${today}&to=${today}&group_by=model`);
        expect(daily).to.deep.equal({
          object: 'spend_daily',
          organization_id: orgId,
          from: today,
          to: today,
          group_by: 'model',
          data: [
            { day: today, model: 'anthropic/claude-sonnet-4-5', cost_usd: '0.0045', requests: 1 },
            { day: today, model: 'openai/gpt-4o-mini', cost_usd: '0.00045', requests: 1 },
          ],
          total_usd: '0.00495',
        });
      });
      const report = await admin.ok('GET', `/organizations/${orgId}/spend?from=${today}&to=${today}&group_by=type`);
      const byType = await admin.ok('GET', `/organizations/${orgId}/spend/daily?from=${today}&to=${today}&group_by=type`);
      expect(byType.data).to.deep.equal([{ day: today, type: 'text', cost_usd: '0.00495', requests: 2 }]);
      expect(report.total_usd).to.equal(byType.total_usd);
      const bySpace = await admin.ok('GET', `/organizations/${orgId}/spend/daily?from=${today}&to=${today}&group_by=space`);
      expect(bySpace.data).to.deep.equal([{ day: today, space: null, cost_usd: '0.00495', requests: 2 }]);
    });

    it('refuses a reversed or too long period and an unknown grouping', async () => {
      const { orgId } = await harness().customer('1');
      for (const query of ['from=2026-02-01&to=2026-01-31', 'from=2024-01-01&to=2025-12-31', 'group_by=day', 'from=2026-13-01']) {
        const { status, body } = await harness().admin.call('GET', `/organizations/${orgId}/spend/daily?${query}`);
        expect(status, query).to.equal(400);
        expect(body.error.code, query).to.equal('invalid_request');
      }
      expect((await harness().admin.call('GET', '/organizations/org_doesnotexist/spend/daily')).status).to.equal(404);
    });
  });
});
