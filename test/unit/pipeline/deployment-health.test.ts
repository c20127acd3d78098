import { expect } from 'chai';
import type { Deployment, RetryRules } from '../../../src/catalog/catalog.js';
import { DeploymentFailure, DeploymentHealth } from '../../../src/pipeline/deployment-health.js';

const deployment = { id: 'openai/m#0', weight: 1 } as Deployment;
const rules: RetryRules = { maxAttempts: 2, budgetMs: 1_000, initialBackoffMs: 0, maxBackoffMs: 0, cooldownAfterFailures: 2, cooldownMs: 40 };
const kind = { retry: false, fallback: false };
const fail = () => Promise.reject(new DeploymentFailure('503'));
const answer = () => Promise.resolve('answer');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('deployment health: the cooldown of a deployment that keeps failing', () => {
  it('cools a deployment down after the failures in a row the rules say, and lets one request try it when the cooldown ends', async () => {
    const health = new DeploymentHealth();
    await health.call(deployment, 'openai/m', rules, kind, fail).catch(() => undefined);
    expect(health.isCoolingDown(deployment, rules), 'one failure').to.equal(false);
    await health.call(deployment, 'openai/m', rules, kind, fail).catch(() => undefined);
    expect(health.isCoolingDown(deployment, rules), 'two in a row').to.equal(true);
    expect(health.statuses()[0]).to.deep.include({ deployment: 'openai/m#0', failed: 2, answered: 0, cooldowns: 1, coolingDown: true });
    await sleep(50);
    expect(health.isCoolingDown(deployment, rules), 'the cooldown has ended').to.equal(false);
    expect(await health.call(deployment, 'openai/m', rules, kind, answer)).to.equal('answer');
    expect(health.statuses()[0]).to.deep.include({ answered: 1, cooldowns: 1, coolingDown: false, coolingUntil: undefined });
  });

  it('counts an answer between failures as breaking the run, and the client leaving as neither', async () => {
    const health = new DeploymentHealth();
    await health.call(deployment, 'openai/m', rules, kind, fail).catch(() => undefined);
    await health.call(deployment, 'openai/m', rules, kind, answer);
    await health.call(deployment, 'openai/m', rules, kind, () => Promise.reject(new Error('client gone'))).catch(() => undefined);
    await health.call(deployment, 'openai/m', rules, kind, fail).catch(() => undefined);
    expect(health.isCoolingDown(deployment, rules)).to.equal(false);
    expect(health.statuses()[0]).to.deep.include({ failed: 2, answered: 1, cooldowns: 0 });
  });

  it('counts retries and fallbacks by the deployment they were sent to', async () => {
    const health = new DeploymentHealth();
    await health.call(deployment, 'openai/m', rules, { retry: true, fallback: true }, answer);
    expect(health.statuses()[0]).to.deep.include({ retries: 1, fallbacks: 1, answered: 1 });
  });
});
