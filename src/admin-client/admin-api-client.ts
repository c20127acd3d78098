import type { RunningGateway } from './running-gateway.js';

/** An error answer of the admin API, as the CLIs print it (`code: message`, like a local GatewayError). */
export class AdminApiError extends Error {
  override name = 'AdminApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The admin API of a running gateway, for the CLIs (running-gateway.ts says when they use it). */
export class AdminApiClient {
  constructor(private readonly gateway: Pick<RunningGateway, 'url' | 'adminToken'>) {}

  get url(): string {
    return this.gateway.url;
  }

  /** The answer, one of the admin API's records (src/admin-records.ts): the gateway that renders them is trusted to send it. */
  async json<Answer>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    return JSON.parse(await this.text(method, path, body, headers)) as Answer;
  }

  async text(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<string> {
    let response: Response;
    try {
      response = await fetch(`${this.gateway.url}/admin/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${this.gateway.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new Error(`could not reach the gateway at ${this.gateway.url}, which holds the data directory: ${(error as Error).message}`);
    }
    const text = await response.text();
    if (!response.ok) {
      let error: { code?: string; message?: string } | undefined;
      try {
        error = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
      } catch {
        error = undefined;
      }
      throw new AdminApiError(response.status, error?.code ?? `http_${response.status}`, error?.message ?? text);
    }
    return text;
  }
}
