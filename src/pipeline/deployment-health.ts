import { circuitBreaker, CircuitState, ConsecutiveBreaker, handleWhen, type CircuitBreakerPolicy } from 'cockatiel';
import type { Deployment, RetryRules } from '../catalog/catalog.js';

/** A deployment's figures since this instance started (GET /metrics, the console's deployment health). */
export interface DeploymentCounts {
  /** Calls sent to it, by how they ended: an answer the gateway used (`answered`), or a failure. */
  answered: number;
  failed: number;
  /** Of those calls, the ones that were a request's second or later attempt. */
  retries: number;
  /** Calls that were a fallback model's (the requested model's deployments had all failed). */
  fallbacks: number;
  /** Times it was put in cooldown. */
  cooldowns: number;
}

export interface DeploymentStatus extends DeploymentCounts {
  readonly deployment: string;
  readonly model: string;
  readonly coolingDown: boolean;
  /** When its cooldown ends (ms since the epoch), while it cools down. */
  readonly coolingUntil: number | undefined;
}

interface Breaker {
  readonly rules: string;
  readonly policy: CircuitBreakerPolicy;
  coolingUntil: number;
}

/** A failure that counts against a deployment's health (a 429, a 5xx, no answer), as the attempts see it. */
export class DeploymentFailure extends Error {
  override name = 'DeploymentFailure';
}

/**
 * The health of every deployment, kept by this instance only (each instance learns on its own traffic;
 * nothing is shared between instances, docs/operator-guide.md): a circuit breaker per deployment
 * (cockatiel's), which puts a deployment that failed `cooldown_after_failures` times in a row in cooldown
 * for `cooldown_ms`, after which one request tries it again (half-open: its success ends the cooldown,
 * its failure starts another). While it cools down, or while that one request is trying it, requests are
 * sent to its model's other deployments, or to the fallbacks.
 */
export class DeploymentHealth {
  private readonly breakers = new Map<string, Breaker>();
  private readonly counts = new Map<string, DeploymentCounts & { readonly model: string }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether requests skip the deployment now: in cooldown, or being tried again by one request. */
  isCoolingDown(deployment: Deployment, rules: RetryRules): boolean {
    const breaker = this.breakerOf(deployment, rules);
    if (breaker.policy.state === CircuitState.HalfOpen) return true;
    return breaker.policy.state === CircuitState.Open && this.now() < breaker.coolingUntil;
  }

  /** When the first of these deployments' cooldowns ends (ms since the epoch); undefined when none cools down. */
  soonestRecovery(deployments: ReadonlyArray<{ deployment: Deployment; rules: RetryRules }>): number | undefined {
    const ends = deployments.map(({ deployment, rules }) => (this.isCoolingDown(deployment, rules) ? this.breakerOf(deployment, rules).coolingUntil : undefined));
    const known = ends.filter((end): end is number => end !== undefined);
    return known.length > 0 ? Math.min(...known) : undefined;
  }

  /**
   * Runs one call to the deployment through its breaker: a `DeploymentFailure` counts against it, an answer
   * for it; anything else (the client leaving) counts neither way.
   */
  async call<T>(deployment: Deployment, model: string, rules: RetryRules, kind: { retry: boolean; fallback: boolean }, call: () => Promise<T>): Promise<T> {
    const counts = this.countsOf(deployment.id, model);
    if (kind.retry) counts.retries++;
    if (kind.fallback) counts.fallbacks++;
    try {
      const result = await this.breakerOf(deployment, rules).policy.execute(call);
      counts.answered++;
      return result;
    } catch (error) {
      if (error instanceof DeploymentFailure) counts.failed++;
      throw error;
    }
  }

  /** A call past the breaker (every candidate cools down): counted, but neither opens nor closes it. */
  async callPast<T>(deployment: Deployment, model: string, call: () => Promise<T>): Promise<T> {
    const counts = this.countsOf(deployment.id, model);
    try {
      const result = await call();
      counts.answered++;
      return result;
    } catch (error) {
      if (error instanceof DeploymentFailure) counts.failed++;
      throw error;
    }
  }

  /** Every deployment this instance has called, with its figures. */
  statuses(): DeploymentStatus[] {
    return [...this.counts.entries()].map(([deployment, { model, ...counts }]) => {
      const breaker = this.breakers.get(deployment);
      const coolingDown = breaker !== undefined && (breaker.policy.state === CircuitState.HalfOpen || (breaker.policy.state === CircuitState.Open && this.now() < breaker.coolingUntil));
      return { deployment, model, ...counts, coolingDown, coolingUntil: coolingDown ? breaker.coolingUntil : undefined };
    });
  }

  private countsOf(deployment: string, model: string): DeploymentCounts & { readonly model: string } {
    let counts = this.counts.get(deployment);
    if (!counts) this.counts.set(deployment, (counts = { model, answered: 0, failed: 0, retries: 0, fallbacks: 0, cooldowns: 0 }));
    return counts;
  }

  /** The deployment's breaker; a catalog reload that changes its rules gives it a new one. */
  private breakerOf(deployment: Deployment, rules: RetryRules): Breaker {
    const key = `${rules.cooldownAfterFailures}/${rules.cooldownMs}`;
    const known = this.breakers.get(deployment.id);
    if (known && known.rules === key) return known;
    const policy = circuitBreaker(
      handleWhen((error) => error instanceof DeploymentFailure),
      { halfOpenAfter: rules.cooldownMs, breaker: new ConsecutiveBreaker(rules.cooldownAfterFailures) },
    );
    const breaker: Breaker = { rules: key, policy, coolingUntil: 0 };
    policy.onBreak(() => {
      breaker.coolingUntil = this.now() + rules.cooldownMs;
      const counts = this.counts.get(deployment.id);
      if (counts) counts.cooldowns++;
    });
    this.breakers.set(deployment.id, breaker);
    return breaker;
  }
}
