import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatUsd, formatUsdTick } from './money.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

/** Colours apart for the eye and in greyscale order; groups beyond them cycle. */
const PALETTE = ['#1f5fa8', '#e07b00', '#2e8b57', '#b0305c', '#6a4fb3', '#8c6d1f', '#008b8b', '#5f6b7a', '#c23b22', '#4c9a2a'];

export interface SpendSeries {
  label: string;
  /** USD per day, aligned with `days`, as the API wrote them: what the tooltips show. */
  amounts: string[];
}

/**
 * Spend per day as bars stacked by group. The table below it carries the same data for screen readers;
 * the chart's own label says its total and the range its axis shows, as the axis writes it.
 */
export function SpendChart({ days, series, summary }: { days: string[]; series: SpendSeries[]; summary: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [axis, setAxis] = useState('');
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data: {
        labels: days,
        // Bar heights are floats, drawn only; every figure written out comes from the API's decimal strings.
        datasets: series.map((entry, index) => ({ label: entry.label, data: entry.amounts.map(Number), backgroundColor: PALETTE[index % PALETTE.length] })),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: { stacked: true, ticks: { maxRotation: 60 } },
          y: { stacked: true, beginAtZero: true, title: { display: true, text: 'USD' }, ticks: { callback: (value) => formatUsdTick(Number(value)) } },
        },
        plugins: {
          legend: { position: 'bottom' },
          tooltip: {
            mode: 'index',
            intersect: false,
            callbacks: { label: (item) => `${item.dataset.label ?? ''}: ${formatUsd(series[item.datasetIndex]?.amounts[item.dataIndex] ?? '0')}` },
          },
        },
      },
    });
    const ticks = chart.scales.y?.ticks ?? [];
    setAxis(ticks.length > 0 ? ` The axis runs from ${String(ticks[0]!.label)} to ${String(ticks.at(-1)!.label)}.` : '');
    return () => chart.destroy();
  }, [days, series]);
  return (
    <div class="chart">
      <canvas ref={canvas} role="img" aria-label={summary + axis} data-testid="spend-chart">
        {summary}
      </canvas>
    </div>
  );
}

/** Every UTC day from `from` to `to`, inclusive. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let time = Date.parse(`${from}T00:00:00Z`); time <= Date.parse(`${to}T00:00:00Z`) && days.length <= 366; time += 86_400_000) {
    days.push(new Date(time).toISOString().slice(0, 10));
  }
  return days;
}
