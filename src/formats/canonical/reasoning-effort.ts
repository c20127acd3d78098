import type { ReasoningEffort } from './canonical-request.js';

/**
 * Anthropic budget → OpenAI effort, bucketed the way LiteLLM does when a messages client reaches an OpenAI
 * model (wire-formats.md 7.5: "enabled → bucketed by budget").
 */
export function effortOfBudget(budget: number | undefined): 'low' | 'medium' | 'high' | undefined {
  if (budget === undefined) return undefined;
  if (budget < 2048) return 'low';
  if (budget < 8192) return 'medium';
  return 'high';
}

/** OpenAI effort → Anthropic budget: LiteLLM DEFAULT_REASONING_EFFORT_*_THINKING_BUDGET (7.2), extended. */
export const BUDGET_OF_EFFORT: Readonly<Record<Exclude<ReasoningEffort, 'none'>, number>> = {
  minimal: 1024,
  low: 1024,
  medium: 2048,
  high: 4096,
  xhigh: 8192,
  max: 16384,
};
