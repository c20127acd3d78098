import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';
import type { TrafficMinuteRecord } from '../admin-records.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

/**
 * Requests and errors per minute (UTC) as bars side by side. Counts, not money: whole numbers on the axis.
 * The figures above the chart and its label carry the totals for screen readers.
 */
export function TrafficChart({ minutes, summary }: { minutes: readonly TrafficMinuteRecord[]; summary: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data: {
        labels: minutes.map((minute) => minute.minute.slice(11, 16)),
        datasets: [
          { label: 'Requests', data: minutes.map((minute) => minute.requests), backgroundColor: '#1f5fa8' },
          { label: 'Errors', data: minutes.map((minute) => minute.errors), backgroundColor: '#c23b22' },
        ],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: { ticks: { maxRotation: 0, autoSkip: true, maxTicksLimit: 12 } },
          y: { beginAtZero: true, title: { display: true, text: 'per minute' }, ticks: { precision: 0 } },
        },
        plugins: { legend: { position: 'bottom' }, tooltip: { mode: 'index', intersect: false } },
      },
    });
    return () => chart.destroy();
  }, [minutes]);
  return (
    <div class="chart short">
      <canvas ref={canvas} role="img" aria-label={summary} data-testid="traffic-chart">
        {summary}
      </canvas>
    </div>
  );
}
