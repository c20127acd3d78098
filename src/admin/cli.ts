import { parseArgs } from 'node:util';
import { DEFAULT_RPM, DEFAULT_TPM, type LimitPair } from '../access/access-events.js';
import { systemClock } from '../clock.js';
import { ConfigError, loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { isGatewayError } from '../errors/gateway-error.js';
import { formatUsd, parseUsd } from '../billing/money.js';
import { createLogger } from '../logger.js';
import { openCore } from '../core.js';
import { keyLimitsFromBody, renderKey, renderLimitPair, renderOrganization } from './admin-records.js';

/**
 * `npm run admin -- <command> [options]`: the admin operations for an operator on the machine, run on the
 * database directly through the same commands and deciders as the admin API. Reads the same environment
 * as the gateway (DATABASE_URL, or DATA_DIR in embedded mode — where the gateway must be stopped first,
 * because one process at a time may hold the data directory). Prints JSON.
 */
const USAGE = `usage: npm run admin -- <command> [options]
  create-organization --name NAME [--pii-masking] [--daily-usd X] [--monthly-usd X]
  show-organization ORG
  block-organization ORG | unblock-organization ORG
  add-credits ORG AMOUNT_USD [--idempotency-key KEY]
  create-team ORG --name NAME [--daily-usd X] [--monthly-usd X]
  create-employee ORG --name NAME [--team TEAM] [--daily-usd X] [--monthly-usd X]
  create-space ORG --name NAME
  issue-key ORG [--name NAME] [--employee EMP] [--models a,b] [--daily-usd X] [--monthly-usd X] [--rpm N] [--tpm N] [--expires-at ISO]
  show-key KEY | revoke-key KEY`;

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
} as const;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  const [command, first, second] = positionals;
  if (!command) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const config = loadConfig();
  const core = await openCore(config, createLogger('silent'), systemClock);
  const { commands, accounts } = core;
  const actor = `cli:${process.env.USER ?? 'operator'}`.replace(/\s/g, '');
  const now = () => systemClock.now();
  const limits = (): LimitPair => ({
    daily: values['daily-usd'] ? String(parseUsd(values['daily-usd'])) : null,
    monthly: values['monthly-usd'] ? String(parseUsd(values['monthly-usd'])) : null,
  });
  const need = (value: string | undefined, what: string): string => {
    if (!value) throw new UsageError(`${command} needs ${what}`);
    return value;
  };
  const organization = async (orgId: string) => renderOrganization(await commands.loadOrganization(orgId), await accounts.balance(orgId));
  try {
    let result: unknown;
    switch (command) {
      case 'create-organization': {
        const created = await commands.createOrganization({ name: need(values.name, '--name'), piiMasking: values['pii-masking'] ?? false, spendLimits: limits() }, actor);
        result = await organization(created.orgId);
        break;
      }
      case 'show-organization':
        result = await organization(need(first, 'ORG'));
        break;
      case 'block-organization':
      case 'unblock-organization':
        await commands.changeOrganization(need(first, 'ORG'), { status: command === 'block-organization' ? 'blocked' : 'active' }, actor);
        result = await organization(first!);
        break;
      case 'add-credits': {
        const balance = await commands.addCredits(need(first, 'ORG'), parseUsd(need(second, 'AMOUNT_USD')), values['idempotency-key'], actor);
        result = { organization_id: first, balance_usd: formatUsd(balance) };
        break;
      }
      case 'create-team': {
        const id = await commands.createTeam(need(first, 'ORG'), { name: need(values.name, '--name'), spendLimits: limits() }, actor);
        result = { id, organization_id: first, name: values.name, spend_limits: renderLimitPair(limits()) };
        break;
      }
      case 'create-employee': {
        const id = await commands.createEmployee(need(first, 'ORG'), { name: need(values.name, '--name'), teamId: values.team ?? null, spendLimits: limits() }, actor);
        result = { id, organization_id: first, name: values.name, team_id: values.team ?? null, spend_limits: renderLimitPair(limits()) };
        break;
      }
      case 'create-space': {
        const id = await commands.createSpace(need(first, 'ORG'), { name: need(values.name, '--name') }, actor);
        result = { id, organization_id: first, name: values.name };
        break;
      }
      case 'issue-key': {
        const pair = limits();
        const { secret, key } = await commands.issueKey(
          need(first, 'ORG'),
          {
            name: values.name ?? null,
            employeeId: values.employee ?? null,
            models: values.models ? values.models.split(',').map((model) => model.trim()) : null,
            limits: { ...keyLimitsFromBody(undefined), overall: pair },
            rpm: values.rpm ? Number(values.rpm) : DEFAULT_RPM,
            tpm: values.tpm ? Number(values.tpm) : DEFAULT_TPM,
            expiresAt: values['expires-at'] ? new Date(values['expires-at']).toISOString() : null,
          },
          actor,
        );
        result = { ...renderKey(key, now()), key: secret };
        break;
      }
      case 'show-key':
        result = renderKey(await commands.loadKey(need(first, 'KEY')), now());
        break;
      case 'revoke-key':
        result = renderKey(await commands.revokeKey(need(first, 'KEY'), actor), now());
        break;
      default:
        throw new UsageError(`unknown command ${command}`);
    }
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } finally {
    await core.close();
  }
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) process.stderr.write(`${error.message}\n${USAGE}\n`);
    else if (isGatewayError(error)) process.stderr.write(`${error.code}: ${error.message}\n`);
    else if (error instanceof ConfigError || error instanceof DataDirLockedError || error instanceof RangeError) process.stderr.write(`${error.message}\n`);
    else process.stderr.write(`${(error as Error).stack ?? error}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
