import { expect } from 'chai';
import { parseUsd } from '../../../src/billing/money.js';
import { useGatewayHarness } from '../../support/gateway-harness.js';
import type { FakeProviderServer } from '../../../ops/fake-providers/fake-provider-server.js';
import { weatherReport, type ClientLibrary, type LibraryModel, type RefusalStatus, type TokenUsage } from './library-client.js';

/**
 * The cases every client library runs, over HTTP against a real gateway in front of the fake providers,
 * with one model per provider format: what a developer does with the library (generate, stream, tools, a
 * tool loop, structured output, a conversation, the refusals), and what the organization was charged for it.
 */

/** Every scripted answer reports these counts. */
const USAGE = { inputTokens: 1_200, outputTokens: 300 } as const;
const TOKENS: TokenUsage = { input: USAGE.inputTokens, output: USAGE.outputTokens };
const TWICE: TokenUsage = { input: 2 * TOKENS.input, output: 2 * TOKENS.output };
const CREDITS = '2';

interface ModelCase {
  readonly id: string;
  readonly provider: 'openai' | 'anthropic';
  /** The provider's own tool call id style, kept by the gateway. */
  readonly callId: string;
  /** What USAGE costs on this model (test/support/catalog.test.yaml), in USD. */
  readonly price: string;
}

const MODELS: readonly ModelCase[] = [
  // $0.15/M in, $0.60/M out: 1,200 × 0.15 / 1e6 = 0.00018, 300 × 0.60 / 1e6 = 0.00018 → 0.00036
  { id: 'openai/gpt-4o-mini', provider: 'openai', callId: 'call_weather1', price: '0.00036' },
  // $3/M in, $15/M out: 1,200 × 3 / 1e6 = 0.0036, 300 × 15 / 1e6 = 0.0045 → 0.0081
  { id: 'anthropic/claude-sonnet-4-5', provider: 'anthropic', callId: 'toolu_weather1', price: '0.0081' },
];

/** The fake OpenAI speaks chat and responses, the fake Anthropic messages: anything else is translated. */
function route(library: ClientLibrary, model: ModelCase): string {
  const native = model.provider === 'openai' ? library.format !== 'messages' : library.format === 'messages';
  return native ? 'pass-through' : 'translated';
}

const PROMPT = 'What is the capital of France?';
const ANSWER = 'The capital of France is Paris.';
const WEATHER_PROMPT = 'What is the weather in Paris?';

export function describeLibrary(library: ClientLibrary): void {
  describe(library.name, function () {
    const current = useGatewayHarness();
    beforeEach(() => {
      current().openai.reset();
      current().anthropic.reset();
    });

    const fakeOf = (model: ModelCase): FakeProviderServer => (model.provider === 'openai' ? current().openai : current().anthropic);
    /** Sends to the provider what the last request carried, as one string to search. */
    const lastSent = (model: ModelCase): string => JSON.stringify(fakeOf(model).lastRequest?.body);
    /** A funded organization and the library pointed at the gateway with its key. */
    const customer = async (model: string): Promise<{ orgId: string; client: LibraryModel }> => {
      const { orgId, secret } = await current().customer(CREDITS);
      return { orgId, client: library.connect(current().gateway, secret, model) };
    };
    /** What the organization paid, from the admin API, once the request is settled. */
    const charged = async (orgId: string): Promise<bigint> => {
      await current().settledMoney(orgId);
      const shown: { balance_usd: string; reserved_usd: string } = await current().admin.ok('GET', `/organizations/${orgId}`);
      expect(parseUsd(shown.reserved_usd), 'nothing left reserved').to.equal(0n);
      return parseUsd(CREDITS) - parseUsd(shown.balance_usd);
    };
    const streamedUsage = (model: ModelCase): Partial<TokenUsage> => library.streamedUsage?.(TOKENS, model.id) ?? TOKENS;
    const expectStreamedUsage = (usage: TokenUsage, model: ModelCase): void => {
      expect(usage.input, 'input tokens').to.be.greaterThan(0);
      expect(usage.output, 'output tokens').to.be.greaterThan(0);
      expect(usage).to.deep.include(streamedUsage(model));
    };

    for (const model of MODELS) {
      describe(`${model.id} (${route(library, model)})`, () => {
        it('generates text and reports the usage the ledger charged', async () => {
          const { orgId, client } = await customer(model.id);
          fakeOf(model).enqueue({ text: ANSWER, usage: USAGE });
          const answer = await client.generate(PROMPT);
          expect(answer).to.deep.equal({ text: ANSWER, usage: TOKENS });
          expect(lastSent(model)).to.contain(PROMPT);
          expect(await charged(orgId)).to.equal(parseUsd(model.price));
        });

        it('streams the same text in pieces, with the usage the ledger charged', async () => {
          const { orgId, client } = await customer(model.id);
          fakeOf(model).enqueue({ text: ANSWER, usage: USAGE }, { text: ANSWER, deltas: 4, usage: USAGE });
          const whole = await client.generate(PROMPT);
          const streamed = await client.stream(PROMPT);
          expect(fakeOf(model).lastRequest?.body).to.have.property('stream', true);
          expect(streamed.text).to.equal(whole.text);
          expect(streamed.pieces).to.be.greaterThan(1);
          expectStreamedUsage(streamed.usage, model);
          expect(await charged(orgId)).to.equal(2n * parseUsd(model.price));
        });

        for (const stream of [false, true]) {
          it(`returns the model's tool call${stream ? ' from a stream' : ''}`, async () => {
            const { orgId, client } = await customer(model.id);
            fakeOf(model).enqueue({ toolCalls: [{ id: model.callId, name: 'get_weather', arguments: { city: 'Paris' } }], usage: USAGE });
            const answer = await client.callTool(WEATHER_PROMPT, stream);
            expect(answer.calls).to.deep.equal([{ id: model.callId, name: 'get_weather', input: { city: 'Paris' } }]);
            expect(lastSent(model)).to.contain('"get_weather"');
            if (stream) expectStreamedUsage(answer.usage, model);
            else expect(answer.usage).to.deep.equal(TOKENS);
            expect(await charged(orgId)).to.equal(parseUsd(model.price));
          });
        }

        it('runs a two-step tool loop: the tool result goes back with its call id', async () => {
          const { orgId, client } = await customer(model.id);
          fakeOf(model).enqueue(
            { toolCalls: [{ id: model.callId, name: 'get_weather', arguments: { city: 'Paris' } }], usage: USAGE },
            { text: 'It is sunny in Paris today.', usage: USAGE },
          );
          const answer = await client.toolLoop(WEATHER_PROMPT);
          expect(answer.toolOutputs).to.deep.equal([weatherReport('Paris')]);
          expect(answer.text).to.equal('It is sunny in Paris today.');
          expect(answer.usage).to.deep.equal(TWICE);
          const second = lastSent(model);
          expect(second).to.contain(model.callId).and.contain(weatherReport('Paris'));
          expect(await charged(orgId)).to.equal(2n * parseUsd(model.price));
        });

        for (const stream of [false, true]) {
          const broken = stream ? library.broken?.structuredStream : undefined;
          if (broken) {
            it.skip(`returns structured output from a stream (skipped: ${broken})`);
            continue;
          }
          it(`returns structured output${stream ? ' from a stream' : ''}`, async function () {
            const { orgId, client } = await customer(model.id);
            if (!client.structured) this.skip();
            const city = { city: 'Paris', country: 'France' };
            const tool = library.structuredOutputTool(model.id);
            fakeOf(model).enqueue(tool ? { toolCalls: [{ name: tool, arguments: city }], usage: USAGE } : { text: JSON.stringify(city), usage: USAGE });
            expect(await client.structured(PROMPT, stream)).to.deep.equal(city);
            // the provider was given the schema (as a response format or as the forced tool's input)
            expect(lastSent(model)).to.contain('"country"');
            expect(await charged(orgId)).to.equal(parseUsd(model.price));
          });
        }

        it('carries a two-turn conversation: the second request has the first turn and its answer', async () => {
          const { orgId, client } = await customer(model.id);
          fakeOf(model).enqueue({ text: 'Paris.', usage: USAGE }, { text: 'Rome.', usage: USAGE });
          const [one, two] = await client.conversation(PROMPT, 'And of Italy?');
          expect([one.text, two.text]).to.deep.equal(['Paris.', 'Rome.']);
          expect([one.usage, two.usage]).to.deep.equal([TOKENS, TOKENS]);
          const second = lastSent(model);
          const positions = [PROMPT, 'Paris.', 'And of Italy?'].map((part) => second.indexOf(part));
          expect(positions.every((position, index) => position >= 0 && position > (positions[index - 1] ?? -1)), second).to.equal(true);
          expect(await charged(orgId)).to.equal(2n * parseUsd(model.price));
        });
      });
    }

    describe('refusals', () => {
      const refusals: ReadonlyArray<{ status: RefusalStatus; what: string; setup: () => Promise<{ client: LibraryModel; orgId?: string }> }> = [
        {
          status: 401,
          what: 'a key the gateway does not know',
          setup: async () => ({ client: library.connect(current().gateway, `sk-gw-${'x'.repeat(43)}`, MODELS[0]!.id) }),
        },
        {
          status: 402,
          what: 'an organization without credits',
          setup: async () => {
            const { orgId, secret } = await current().admin.organizationWithKey({});
            return { orgId, client: library.connect(current().gateway, secret, MODELS[0]!.id) };
          },
        },
        { status: 404, what: 'a model the catalog does not have', setup: () => customer('openai/no-such-model') },
      ];
      for (const { status, what, setup } of refusals) {
        for (const stream of [false, true]) {
          it(`${status} for ${what}: ${library.errors[status]}${stream ? ' from a stream' : ''}, nothing sent or charged`, async () => {
            const { client, orgId } = await setup();
            const error: unknown = await (stream ? client.stream(PROMPT) : client.generate(PROMPT)).then(
              () => expect.fail('expected a refusal'),
              (thrown: unknown) => thrown,
            );
            expect(error, String(error)).to.be.instanceOf(Error);
            expect((error as Error).constructor.name, String(error)).to.equal(library.errors[status]);
            expect(library.errorStatus(error)).to.equal(status);
            expect(current().openai.requests.length + current().anthropic.requests.length, 'requests to providers').to.equal(0);
            if (orgId && status === 404) expect(await charged(orgId)).to.equal(0n);
          });
        }
      }
    });
  });
}
