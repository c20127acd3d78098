/**
 * The soak's clients: `concurrency` loops, each sending one request after another to a random instance
 * with a random key and a random endpoint, as clients behind a load balancer do. A connection refused
 * (an instance down) is sent again to the next instance, as a balancer would; a connection that breaks
 * mid-request (its instance killed) is counted as `broken`. Every answer is counted by status, per second.
 */
export interface SoakKey {
  readonly orgId: string;
  readonly secret: string;
}

export interface LoadTally {
  /** Answers by status (`broken`: the connection broke mid-request; `timeout`: no answer within 30 s). */
  readonly byStatus: Map<string, number>;
  /** Per second of the run: answers, and those that were neither a success nor a refusal the client caused (5xx, broken, timeout). */
  readonly seconds: Array<{ answered: number; failed: number }>;
  sent: number;
}

const ENDPOINTS: ReadonlyArray<{ path: string; body: (stream: boolean) => Record<string, unknown>; streams: boolean }> = [
  { path: '/v1/chat/completions', streams: true, body: (stream) => ({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 200, ...(stream ? { stream: true } : {}) }) },
  { path: '/v1/messages', streams: true, body: (stream) => ({ model: 'anthropic/claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'Say hello.' }], ...(stream ? { stream: true } : {}) }) },
  { path: '/v1/responses', streams: true, body: (stream) => ({ model: 'openai/gpt-4o-mini', input: 'Say hello.', max_output_tokens: 200, ...(stream ? { stream: true } : {}) }) },
  { path: '/v1/embeddings', streams: false, body: () => ({ model: 'openai/text-embedding-3-small', input: 'Say hello.' }) },
];

export async function runLoad(options: { urls: () => readonly string[]; keys: readonly SoakKey[]; concurrency: number; seconds: number; tally: LoadTally }): Promise<void> {
  const { tally } = options;
  const started = Date.now();
  const until = started + options.seconds * 1_000;
  const count = (status: string, failed: boolean) => {
    tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1);
    const second = Math.floor((Date.now() - started) / 1_000);
    while (tally.seconds.length <= second) tally.seconds.push({ answered: 0, failed: 0 });
    tally.seconds[second]!.answered++;
    if (failed) tally.seconds[second]!.failed++;
  };
  const loop = async (worker: number) => {
    let turn = worker;
    while (Date.now() < until) {
      turn++;
      const key = options.keys[(turn * 7919 + worker) % options.keys.length]!;
      const endpoint = ENDPOINTS[turn % ENDPOINTS.length]!;
      const body = JSON.stringify(endpoint.body(endpoint.streams && turn % 3 === 0));
      tally.sent++;
      const status = await sendToSomeInstance(options.urls(), turn, endpoint.path, key.secret, body);
      count(status, !/^(200|402|429)$/.test(status));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, worker) => loop(worker)));
}

/** Sends to the instances in turn from `first`, moving on while a connection is refused; the answer's status. */
async function sendToSomeInstance(urls: readonly string[], first: number, path: string, secret: string, body: string): Promise<string> {
  for (let attempt = 0; attempt < urls.length; attempt++) {
    const url = urls[(first + attempt) % urls.length]!;
    try {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body,
        signal: AbortSignal.timeout(30_000),
      });
      await response.arrayBuffer();
      return String(response.status);
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      if (cause?.code === 'ECONNREFUSED') continue;
      return (error as Error).name === 'TimeoutError' ? 'timeout' : 'broken';
    }
  }
  return 'refused';
}
