import { expect } from 'chai';
import type { GatewayProcess } from './gateway-process.js';

/** Issue "When Redis goes away": a gateway whose store is down keeps its event loop under this delay. */
const MAX_LOOP_DELAY_MS = 50;
/** and its CPU under a third of a core (a reconnect loop that spins takes all of one). */
const MAX_CPU_SHARE = 0.34;

/** Every event-loop report of the window stays under the bound, and the process used under a third of a core. */
export function expectResponsive(gateway: GatewayProcess, from: number, to: number, minimumReports = 4): void {
  const reports = gateway.eventLoop.filter((report) => report.at > from && report.at <= to + 250);
  expect(reports.length, 'event-loop reports during the window').to.be.at.least(minimumReports);
  const worst = Math.max(...reports.map((report) => report.maxDelayMs));
  expect(worst, `event-loop delay ${worst.toFixed(1)} ms`).to.be.lessThan(MAX_LOOP_DELAY_MS);
  if (reports.length < 2) return;
  const first = reports[0]!;
  const last = reports[reports.length - 1]!;
  const cpuShare = (last.cpuMicros - first.cpuMicros) / 1000 / Math.max(1, last.at - first.at);
  expect(cpuShare, `CPU ${(cpuShare * 100).toFixed(0)} % of a core`).to.be.lessThan(MAX_CPU_SHARE);
}

