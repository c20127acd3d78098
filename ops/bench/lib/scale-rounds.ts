/**
 * The scale-out ratios again, in rounds that alternate the targets: one instance, two instances on one
 * organization and, as the control, two instances with one organization each, each round measured back to
 * back. One instance's CPU a request moved by up to 40 % between two measurements a minute apart on this
 * 2-core machine, as the rest of the machine changed; one pair of measurements cannot separate that from
 * what a second instance costs, the median of ratios taken side by side can. The order is reversed every
 * other round so that a drift within a round favours neither target. Throughput and CPU only (no paced
 * load).
 */
import { underLoad, type MeasureSettings, type Target } from './measure.js';

export interface ScaleRoundFigures {
  readonly perSecond: number;
  /** µs of the gateways' CPU a request, and of the Postgres backends. */
  readonly own: number | undefined;
  readonly postgres: number | undefined;
}

export interface ScaleRound {
  readonly one: ScaleRoundFigures;
  readonly two: ScaleRoundFigures;
  readonly apart?: ScaleRoundFigures | undefined;
}

/** The processes are warm from the first measurement: a short warm-up refills the pools. */
const ROUND_WARM_UP_SECONDS = 2;

export async function measureScaleRounds(
  targets: { one: Target; two: Target; apart?: Target | undefined },
  settings: MeasureSettings,
  rounds: number,
): Promise<ScaleRound[]> {
  const figuresOf = async (target: Target): Promise<ScaleRoundFigures> => {
    const { load, cpu } = await underLoad(target, settings, ROUND_WARM_UP_SECONDS);
    return { perSecond: load.perSecond, own: cpu.own, postgres: cpu.postgres };
  };
  const measured: ScaleRound[] = [];
  for (let round = 0; round < rounds; round++) {
    const order: Array<'one' | 'two' | 'apart'> = targets.apart ? ['one', 'two', 'apart'] : ['one', 'two'];
    if (round % 2 === 1) order.reverse();
    const figures: Partial<Record<'one' | 'two' | 'apart', ScaleRoundFigures>> = {};
    for (const name of order) figures[name] = await figuresOf(targets[name]!);
    measured.push({ one: figures.one!, two: figures.two!, apart: figures.apart });
  }
  return measured;
}

const ratio = (value: number | undefined, of: number | undefined) => (value === undefined || !of ? undefined : value / of);

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Each round's ratios to one instance, and their medians. */
export function scaleRoundRatios(rounds: readonly ScaleRound[]) {
  const ratiosOf = (pick: (round: ScaleRound) => ScaleRoundFigures | undefined) => {
    const each = rounds.map((round) => {
      const figures = pick(round);
      return figures ? { throughput: figures.perSecond / round.one.perSecond, cpu: ratio(figures.own, round.one.own) } : undefined;
    });
    const present = each.filter((entry) => entry !== undefined);
    return {
      each,
      throughput: median(present.map((entry) => entry.throughput)),
      cpu: median(present.flatMap((entry) => (entry.cpu === undefined ? [] : [entry.cpu]))),
    };
  };
  return { two: ratiosOf((round) => round.two), apart: ratiosOf((round) => round.apart) };
}

export function printScaleRounds(rounds: readonly ScaleRound[]): void {
  if (rounds.length === 0) return;
  const { two, apart } = scaleRoundRatios(rounds);
  const fixed = (value: number | undefined, digits: number) => (value === undefined ? 'n/a' : value.toFixed(digits));
  console.log(`\nthe same, in ${rounds.length} rounds measured back to back (order reversed every other round); ratios to one instance of the same round`);
  console.log('| round | one: req/s | one: CPU µs/req | two: req/s | two: CPU µs/req | two ÷ one: throughput | CPU | one org each ÷ one: throughput | CPU |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  rounds.forEach((round, index) => {
    const pair = two.each[index];
    const control = apart.each[index];
    console.log(
      `| ${index + 1} | ${Math.round(round.one.perSecond)} | ${fixed(round.one.own, 0)} | ${Math.round(round.two.perSecond)} | ${fixed(round.two.own, 0)} | ` +
        `${fixed(pair?.throughput, 2)} | ${fixed(pair?.cpu, 2)} | ${fixed(control?.throughput, 2)} | ${fixed(control?.cpu, 2)} |`,
    );
  });
  console.log(`| median | | | | | ${fixed(two.throughput, 2)} | ${fixed(two.cpu, 2)} | ${fixed(apart.throughput, 2)} | ${fixed(apart.cpu, 2)} |`);
  console.log('targets, on the medians: throughput ≥ 1.00 × one instance\'s, the gateways\' CPU a request ≤ 1.10 × one instance\'s');
}
