import { TEST_ADMIN_TOKEN } from './test-gateway.js';

/** The admin API over HTTP, as an operator's script would call it. */
export class AdminClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string = TEST_ADMIN_TOKEN,
  ) {}

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
    const response = await fetch(`${this.baseUrl}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  }

  async ok(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<any> {
    const result = await this.call(method, path, body, headers);
    if (result.status >= 300) throw new Error(`${method} ${path} → ${result.status} ${JSON.stringify(result.body)}`);
    return result.body;
  }

  /** An organization with `credits` USD and one key; returns the ids and the key's secret. */
  async organizationWithKey(options: { credits?: string; key?: Record<string, unknown>; organization?: Record<string, unknown> } = {}) {
    const organization = await this.ok('POST', '/organizations', { name: 'Test org', ...options.organization });
    if (options.credits) await this.ok('POST', `/organizations/${organization.id}/credits`, { amount_usd: options.credits });
    const key = await this.ok('POST', `/organizations/${organization.id}/keys`, { name: 'test key', ...options.key });
    return { orgId: organization.id as string, keyId: key.id as string, secret: key.key as string };
  }
}
