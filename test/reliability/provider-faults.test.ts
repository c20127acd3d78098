import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { openPostgres, type Database } from '../../src/db/database.js';
import { PostgresEventStore } from '../../src/eventstore/postgres/postgres-event-store.js';
import { PROVIDER_FAULTS, type ProviderFaultName } from '../../ops/fake-providers/provider-faults.js';
import { npmRunAudit } from '../support/audit-cli.js';
import { createScratchDatabase } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { speechWav } from '../support/multipart-requests.js';
import { accountEvents, historyByReservation, reliabilityCatalog, send, startFakeProvidersProcess, type Answer, customerOf } from './reliability-support.js';

/**
 * Issue 37, item 3: every endpoint that calls a provider, against every way a provider fails, all at once
 * on one production gateway process whose providers time out after 5 s. Each request names its fault in
 * its prompt (`fake-fault:<name>`), so that they may run together. Each gets the documented answer in its
 * route's error style within the timeout and a margin (never a hung client); its reservation is released
 * when it was refused, settled for what was received when it was answered; the gateway's memory stays
 * bounded (10 MB answers, answers without end); and the audit verifies.
 */
const PROVIDER_TIMEOUT_MS = 5_000;
/** The timeout and a margin for a busy machine: an answer later than this counts as a hung client. */
const NO_HUNG_CLIENT_MS = PROVIDER_TIMEOUT_MS + 8_000;

type Fault = Exclude<ProviderFaultName, 'huge_image'> | 'refused';
const FAULTS: readonly Fault[] = ['refused', ...(Object.keys(PROVIDER_FAULTS) as ProviderFaultName[]).filter((name): name is Exclude<ProviderFaultName, 'huge_image'> => name !== 'huge_image')];

/** What a client gets: one status, or the statuses allowed (a stream whose headers went out before the fault is a 200 that ends with an error event). */
const JSON_ANSWER: Record<Fault, readonly number[]> = {
  refused: [502], reset: [502], reset_mid_answer: [502], stall: [503], trickle: [503], malformed: [502], truncated: [200],
  // an answer without end is cut at 64 MiB (502) or, when the provider sends slower than that, at its timeout (503)
  no_usage: [200], bad_request: [400], rate_limited: [429], overloaded: [529], huge: [200], endless: [502, 503],
};
const STREAM_ANSWER: Record<Fault, readonly number[]> = {
  refused: [502], reset: [502], reset_mid_answer: [200], stall: [503], trickle: [200, 503], malformed: [200, 502], truncated: [200],
  no_usage: [200], bad_request: [400], rate_limited: [429], overloaded: [529], huge: [200], endless: [200],
};

interface Case {
  readonly name: string;
  readonly fault: Fault;
  readonly stream: boolean;
  readonly style: 'openai' | 'messages';
  readonly send: () => Promise<Answer>;
}

describe('reliability: provider faults on every endpoint that calls a provider', function () {
  this.timeout(120_000);
  let scratch: { url: string; drop: () => Promise<void> };
  let fakes: Awaited<ReturnType<typeof startFakeProvidersProcess>>;
  let gateway: GatewayProcess;
  let database: Database;
  let store: PostgresEventStore;

  before(async () => {
    scratch = await createScratchDatabase('provider_faults');
    fakes = await startFakeProvidersProcess();
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const catalog = await reliabilityCatalog(mkdtempSync(join(tmpdir(), 'gw-faults-')), fakes, PROVIDER_TIMEOUT_MS);
    gateway = await startGatewayProcess({ DATABASE_URL: scratch.url, CATALOG_FILE: catalog }, fakes, { probeEventLoop: true });
    database = await openPostgres({ url: scratch.url, poolSize: 2 });
    store = new PostgresEventStore(database);
  });

  after(async () => {
    await gateway?.stop();
    await store?.close();
    await database?.close();
    await fakes?.close();
    await scratch?.drop();
  });

  function cases(secret: string): Case[] {
    const json = (path: string, body: Record<string, unknown>) => () =>
      send(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: JSON.stringify(body), timeoutMs: 30_000 });
    const all: Case[] = [];
    for (const fault of FAULTS) {
      const prompt = `Say hello. fake-fault:${fault}`;
      const text = fault === 'refused' ? 'closed/gpt-4o-mini' : 'openai/gpt-4o-mini';
      for (const stream of [false, true]) {
        const extra = stream ? { stream: true } : {};
        all.push({ name: `chat ${stream ? 'stream' : 'JSON'}`, fault, stream, style: 'openai', send: json('/v1/chat/completions', { model: text, messages: [{ role: 'user', content: prompt }], max_tokens: 50, ...extra }) });
        all.push({ name: `responses ${stream ? 'stream' : 'JSON'}`, fault, stream, style: 'openai', send: json('/v1/responses', { model: text, input: prompt, max_output_tokens: 50, ...extra }) });
        // messages on an Anthropic model (the provider's own format), and on an OpenAI one (translated)
        const messages = fault === 'refused' ? ['closed/gpt-4o-mini'] : ['anthropic/claude-sonnet-4-5', 'openai/gpt-4o-mini'];
        for (const model of messages) {
          all.push({ name: `messages ${stream ? 'stream' : 'JSON'} on ${model}`, fault, stream, style: 'messages', send: json('/v1/messages', { model, max_tokens: 50, messages: [{ role: 'user', content: prompt }], ...extra }) });
        }
      }
      if (fault === 'refused') continue; // the side models live on the fake OpenAI only
      all.push({ name: 'embeddings', fault, stream: false, style: 'openai', send: json('/v1/embeddings', { model: 'openai/text-embedding-3-small', input: prompt }) });
      const imagePrompt = fault === 'huge' ? 'A lighthouse. fake-fault:huge_image' : prompt;
      all.push({ name: 'images', fault, stream: false, style: 'openai', send: json('/v1/images/generations', { model: 'openai/gpt-image-1', prompt: imagePrompt, response_format: 'b64_json' }) });
      all.push({
        name: 'transcriptions',
        fault,
        stream: false,
        style: 'openai',
        send: () => {
          const form = new FormData();
          form.append('prompt', prompt);
          form.append('model', 'openai/whisper-1');
          form.append('file', new Blob([speechWav(1)], { type: 'audio/wav' }), 'speech.wav');
          return send(`${gateway.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: form, timeoutMs: 30_000 });
        },
      });
    }
    return all;
  }

  it('answers each with the documented code in its route\'s style, in bounded time and memory, and charges only what was served', async () => {
    const { orgId, secret } = await customerOf(gateway, { credits: '100', key: { rpm: 100_000, tpm: 1_000_000_000 } });
    const pid = gateway.child.pid!;
    const peakBefore = peakRss(pid);
    const retainedBefore = await gateway.retainedAfterGc();
    // two waves: the answers of 10 MiB and without end cost the fakes and the gateway real CPU, which must
    // not make the timing of the others depend on how busy the machine is
    const heavy = (each: Case) => each.fault === 'huge' || each.fault === 'endless';
    const all = [...cases(secret).filter((each) => !heavy(each)), ...cases(secret).filter((each) => each.fault === 'endless'), ...cases(secret).filter((each) => each.fault === 'huge')];
    const light = all.filter((each) => !heavy(each));
    const answers = await Promise.all(light.map((each) => each.send()));
    const endless = all.filter((each) => each.fault === 'endless');
    answers.push(...(await Promise.all(endless.map((each) => each.send()))));
    // the 10 MiB answers three at a time: together they held a busy machine past the timeout
    const huge = all.filter((each) => each.fault === 'huge');
    for (let index = 0; index < huge.length; index += 3) answers.push(...(await Promise.all(huge.slice(index, index + 3).map((each) => each.send()))));
    const failures: string[] = [];
    for (const [index, answer] of answers.entries()) {
      const each = all[index]!;
      const label = `${each.name} / ${each.fault}: ${answer.status} in ${answer.ms} ms ${answer.text.slice(0, 160)}`;
      const allowed = each.stream ? STREAM_ANSWER[each.fault] : JSON_ANSWER[each.fault];
      if (!allowed.includes(answer.status)) failures.push(`status not in ${allowed}: ${label}`);
      if (answer.ms > NO_HUNG_CLIENT_MS) failures.push(`too slow: ${label}`);
      if (answer.status >= 500 && answer.status < 529) {
        if (!answer.headers.get('x-request-id')) failures.push(`no X-Request-Id: ${label}`);
        const body = answer.body;
        const styled = each.style === 'messages' ? body?.type === 'error' && body?.error?.type === 'api_error' : body?.error?.type === 'api_error' && typeof body?.error?.code === 'string';
        if (!styled) failures.push(`not in the route's error style: ${label}`);
        if (answer.status === 503 && !/^\d+$/.test(answer.headers.get('retry-after') ?? '')) failures.push(`503 without Retry-After: ${label}`);
      }
      if ([429, 529].includes(answer.status) && answer.headers.get('retry-after') !== String(each.fault === 'rate_limited' ? 7 : 3)) failures.push(`the provider's Retry-After not passed on: ${label}`);
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);

    // the money: a refused request released, an answered one settled (for what was received), none left open
    await eventually(async () => {
      const histories = historyByReservation(await accountEvents(store, orgId));
      const problems: string[] = [];
      for (const [index, answer] of answers.entries()) {
        const history = histories.get(answer.headers.get('x-request-id') ?? '') ?? [];
        const closing = history.map((event) => event.type).filter((type) => type !== 'FundsReserved');
        const expected = answer.status === 200 ? 'ReservationSettled' : 'ReservationReleased';
        if (closing.join() !== expected) problems.push(`${all[index]!.name} / ${all[index]!.fault} (${answer.status}): ${closing.join() || 'not closed'}`);
      }
      expect(problems, problems.join('\n')).to.deep.equal([]);
    }, 20_000, 250);

    const peakGrowth = peakRss(pid) - peakBefore;
    expect(peakGrowth, 'peak RSS growth (ten 10 MB answers at once, answers without end)').to.be.below(1024 * 2 ** 20);
    // what the gateway keeps once the answers are done (sockets and buffers of the cut calls go within seconds)
    const retainedGrowth = await eventually(async () => {
      const growth = (await gateway.retainedAfterGc()) - retainedBefore;
      expect(growth, 'memory kept after the answers').to.be.below(32 * 2 ** 20);
      return growth;
    }, 15_000, 500);
    console.log(`      ${all.length} requests; peak RSS grew ${(peakGrowth / 2 ** 20).toFixed(0)} MiB, retained after GC ${(retainedGrowth / 2 ** 20).toFixed(1)} MiB`);
    const verify = await npmRunAudit(['verify'], { DATABASE_URL: scratch.url });
    expect(verify.code, verify.stderr).to.equal(0);
  });

  it('fails a video job the provider refuses, and keeps trying one whose provider fails in a way that may pass, charging nothing either way', async () => {
    const { orgId, secret } = await customerOf(gateway, { credits: '10', key: { rpm: 100_000 } });
    // src/videos/video-provider.ts: a 4xx refuses the job; a 5xx, a 429, no answer or a broken one may pass, and is tried again
    const transient: readonly Fault[] = ['reset', 'stall', 'malformed', 'rate_limited', 'overloaded', 'endless', 'trickle'];
    const jobs = await Promise.all(
      ['bad_request' as const, ...transient].map(async (fault) => {
        const answer = await send(`${gateway.url}/v1/videos`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'openai/sora-2', prompt: `A lighthouse. fake-fault:${fault}`, seconds: 4 }),
        });
        expect(answer.status, `${fault}: ${answer.text}`).to.equal(200);
        return { fault, id: answer.body.id as string };
      }),
    );
    const read = (id: string) => send(`${gateway.url}/v1/videos/${id}`, { headers: { authorization: `Bearer ${secret}` } });
    await eventually(async () => {
      const job = (await read(jobs[0]!.id)).body;
      expect({ status: job.status, error: job.error?.code }).to.deep.equal({ status: 'failed', error: 'provider_error' });
    }, 30_000, 250);
    // past the longest provider timeout (the stalled submission) and its retry
    await new Promise((resolve) => setTimeout(resolve, PROVIDER_TIMEOUT_MS + 1_000));
    for (const { fault, id } of jobs.slice(1)) expect((await read(id)).body.status, fault).to.be.oneOf(['queued', 'in_progress']);
    await eventually(async () => {
      const organization = await gateway.admin.ok('GET', `/organizations/${orgId}`);
      // 4 s at $0.10 a second, reserved by each job still being tried; the refused one's released
      expect({ balance: organization.balance_usd, reserved: organization.reserved_usd }).to.deep.equal({ balance: '10.00', reserved: (0.4 * transient.length).toFixed(2) });
    }, 30_000, 500);
  });
});

/** The process's peak resident memory so far (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((row) => row.startsWith('VmHWM:'))!;
  return Number(line.split(/\s+/)[1]) * 1024;
}
