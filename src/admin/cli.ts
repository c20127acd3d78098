import { parseArgs } from 'node:util';
import { systemClock } from '../clock.js';
import { ConfigError, loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { isGatewayError } from '../errors/gateway-error.js';
import { createLogger } from '../logger.js';
import { openCore } from '../core.js';
import { AdminApiClient, AdminApiError } from '../admin-client/admin-api-client.js';
import { runningGateway } from '../admin-client/running-gateway.js';
import { localAdminOperations, remoteAdminOperations } from './admin-operations.js';
import type { LimitPairBody, SpendControlsBody } from './admin-schemas.js';

/**
 * `npm run admin -- <command> [options]`: the admin operations for an operator on the machine, run on the
 * database directly through the same commands and deciders as the admin API. Reads the same environment
 * as the gateway (DATABASE_URL, or DATA_DIR in embedded mode). In the embedded mode only one process may
 * hold the data directory: while a gateway holds it, the commands go through that gateway's admin API
 * (src/admin-client/running-gateway.ts), with the same results. Prints JSON.
 */
const USAGE = `usage: npm run admin -- <command> [options]
  create-organization --name NAME [--pii-masking] [--daily-usd X] [--monthly-usd X]
  show-organization ORG
  block-organization ORG | unblock-organization ORG
  set-pii-masking ORG on|off
  add-credits ORG AMOUNT_USD [--idempotency-key KEY]
  create-team ORG --name NAME [--daily-usd X] [--monthly-usd X]
  create-employee ORG --name NAME [--team TEAM] [--daily-usd X] [--monthly-usd X]
  create-space ORG --name NAME
  issue-key ORG [--name NAME] [--employee EMP] [--models a,b] [--daily-usd X] [--monthly-usd X] [--rpm N] [--tpm N] [--expires-at ISO]
            [--max-concurrent N] [--max-cost-usd X]
  show-key KEY | revoke-key KEY
  set-key-caps KEY [--max-concurrent N|none] [--max-cost-usd X|none]
  show-spend-controls ORG
  set-org-concurrency ORG N|none
  set-budget-alerts ORG [--percent SCOPE[:ID]=P,P…]… [--low-balance-usd X]   (SCOPE: organization, key, team, employee)
  set-webhook ORG URL [--rotate-secret] | remove-webhook ORG | test-webhook ORG | webhook-deliveries ORG`;

const OPTIONS = {
  name: { type: 'string' },
  'pii-masking': { type: 'boolean' },
  'daily-usd': { type: 'string' },
  'monthly-usd': { type: 'string' },
  'idempotency-key': { type: 'string' },
  team: { type: 'string' },
  employee: { type: 'string' },
  models: { type: 'string' },
  rpm: { type: 'string' },
  tpm: { type: 'string' },
  'expires-at': { type: 'string' },
  'max-concurrent': { type: 'string' },
  'max-cost-usd': { type: 'string' },
  percent: { type: 'string', multiple: true },
  'low-balance-usd': { type: 'string' },
  'rotate-secret': { type: 'boolean' },
} as const;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  const [command, first, second] = positionals;
  if (!command) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const config = loadConfig();
  const gateway = runningGateway(config);
  const core = gateway ? undefined : await openCore(config, createLogger('silent'), systemClock);
  const actor = `cli:${process.env.USER ?? 'operator'}`.replace(/\s/g, '');
  const operations = core ? localAdminOperations(core, systemClock, actor) : remoteAdminOperations(new AdminApiClient(gateway!));
  const limits: LimitPairBody = {
    ...(values['daily-usd'] ? { daily_usd: values['daily-usd'] } : {}),
    ...(values['monthly-usd'] ? { monthly_usd: values['monthly-usd'] } : {}),
  };
  const need = (value: string | undefined, what: string): string => {
    if (!value) throw new UsageError(`${command} needs ${what}`);
    return value;
  };
  try {
    let result: unknown;
    switch (command) {
      case 'create-organization':
        result = await operations.createOrganization({ name: need(values.name, '--name'), piiMasking: values['pii-masking'] ?? false, limits });
        break;
      case 'show-organization':
        result = await operations.showOrganization(need(first, 'ORG'));
        break;
      case 'block-organization':
      case 'unblock-organization':
        result = await operations.setOrganizationStatus(need(first, 'ORG'), command === 'block-organization' ? 'blocked' : 'active');
        break;
      case 'set-pii-masking': {
        const setting = need(second, 'on or off');
        if (setting !== 'on' && setting !== 'off') throw new UsageError('set-pii-masking takes on or off');
        result = await operations.setOrganizationPiiMasking(need(first, 'ORG'), setting === 'on');
        break;
      }
      case 'add-credits':
        result = await operations.addCredits(need(first, 'ORG'), need(second, 'AMOUNT_USD'), values['idempotency-key']);
        break;
      case 'create-team':
        result = await operations.createTeam(need(first, 'ORG'), { name: need(values.name, '--name'), limits });
        break;
      case 'create-employee':
        result = await operations.createEmployee(need(first, 'ORG'), { name: need(values.name, '--name'), teamId: values.team ?? null, limits });
        break;
      case 'create-space':
        result = await operations.createSpace(need(first, 'ORG'), { name: need(values.name, '--name') });
        break;
      case 'issue-key':
        result = await operations.issueKey(need(first, 'ORG'), {
          name: values.name ?? null,
          employee_id: values.employee ?? null,
          models: values.models ? values.models.split(',').map((model) => model.trim()) : null,
          limits,
          ...(values.rpm ? { rpm: Number(values.rpm) } : {}),
          ...(values.tpm ? { tpm: Number(values.tpm) } : {}),
          expires_at: values['expires-at'] ? new Date(values['expires-at']).toISOString() : null,
          ...(values['max-concurrent'] ? { max_concurrent_requests: count(values['max-concurrent']) } : {}),
          ...(values['max-cost-usd'] ? { max_cost_per_request_usd: values['max-cost-usd'] } : {}),
        });
        break;
      case 'show-key':
        result = await operations.showKey(need(first, 'KEY'));
        break;
      case 'revoke-key':
        result = await operations.revokeKey(need(first, 'KEY'));
        break;
      case 'set-key-caps':
        result = await operations.setKeyCaps(need(first, 'KEY'), {
          ...(values['max-concurrent'] ? { max_concurrent_requests: values['max-concurrent'] === 'none' ? null : count(values['max-concurrent']) } : {}),
          ...(values['max-cost-usd'] ? { max_cost_per_request_usd: values['max-cost-usd'] === 'none' ? null : values['max-cost-usd'] } : {}),
        });
        break;
      case 'show-spend-controls':
        result = await operations.showSpendControls(need(first, 'ORG'));
        break;
      case 'set-org-concurrency': {
        const cap = need(second, 'N or none');
        result = await operations.changeSpendControls(need(first, 'ORG'), { max_concurrent_requests: cap === 'none' ? null : count(cap) });
        break;
      }
      case 'set-budget-alerts':
        result = await operations.changeSpendControls(need(first, 'ORG'), { budget_alerts: budgetAlerts(values.percent ?? [], values['low-balance-usd']) });
        break;
      case 'set-webhook':
        result = await operations.setWebhook(need(first, 'ORG'), need(second, 'URL'), values['rotate-secret'] ?? false);
        break;
      case 'remove-webhook':
        result = await operations.removeWebhook(need(first, 'ORG'));
        break;
      case 'test-webhook':
        result = await operations.testWebhook(need(first, 'ORG'));
        break;
      case 'webhook-deliveries':
        result = await operations.webhookDeliveries(need(first, 'ORG'));
        break;
      default:
        throw new UsageError(`unknown command ${command}`);
    }
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } finally {
    await core?.close();
  }
}

class UsageError extends Error {}

function count(text: string): number {
  if (!/^[1-9]\d*$/.test(text)) throw new UsageError(`${text} is not a whole number above zero`);
  return Number(text);
}

/** `--percent key=50,80 --percent team:team_…=90` → the rules of `set-budget-alerts` (which replace all). */
function budgetAlerts(percents: readonly string[], lowBalanceUsd: string | undefined): NonNullable<SpendControlsBody['budget_alerts']> {
  const rules = percents.map((option) => {
    const match = /^(organization|key|team|employee)(?::([^=]+))?=(\d+(?:,\d+)*)$/.exec(option);
    if (!match) throw new UsageError(`--percent ${option}: write SCOPE[:ID]=P,P (e.g. key=50,80 or team:team_…=90)`);
    return { scope: match[1] as 'organization' | 'key' | 'team' | 'employee', id: match[2] ?? null, percents: match[3]!.split(',').map(Number) };
  });
  return { limit_percentages: rules, low_balance_usd: lowBalanceUsd ?? null };
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) process.stderr.write(`${error.message}\n${USAGE}\n`);
    else if (isGatewayError(error) || error instanceof AdminApiError) process.stderr.write(`${error.code}: ${error.message}\n`);
    else if (error instanceof ConfigError || error instanceof DataDirLockedError || error instanceof RangeError) process.stderr.write(`${error.message}\n`);
    else process.stderr.write(`${(error as Error).stack ?? error}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
