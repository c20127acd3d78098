import { expect } from 'chai';
import type { GatewayProcess } from './gateway-process.js';

/**
 * A gateway whose store is down keeps its event-loop delay under 50 ms: in every 200 ms interval but at
 * most one, whose single pause may be longer when the OS gives the core to another process (this 2-core
 * machine also runs mocha, Postgres and the other gateways) or a full garbage collection runs, but stays
 * under 200 ms. A loop that spins or blocks shows as delays of seconds in interval after interval.
 */
const LOOP_DELAY_MS = 50;
const LONGEST_PAUSE_MS = 200;
/** and its CPU under a third of a core (a reconnect loop that spins takes all of one). */
const MAX_CPU_SHARE = 0.34;

/** The event loop stayed responsive through the window, and the process used under a third of a core. */
export function expectResponsive(gateway: GatewayProcess, from: number, to: number, minimumReports = 4): void {
  const reports = gateway.eventLoop.filter((report) => report.at > from && report.at <= to + 250);
  expect(reports.length, 'event-loop reports during the window').to.be.at.least(minimumReports);
  const delays = reports.map((report) => Math.round(report.maxDelayMs));
  expect(delays.filter((delay) => delay >= LOOP_DELAY_MS).length, `longest delay of each 200 ms interval (ms): ${delays.join(' ')}`).to.be.at.most(1);
  expect(Math.max(...delays), `longest delay of each 200 ms interval (ms): ${delays.join(' ')}`).to.be.lessThan(LONGEST_PAUSE_MS);
  if (reports.length < 2) return;
  const first = reports[0]!;
  const last = reports[reports.length - 1]!;
  const cpuShare = (last.cpuMicros - first.cpuMicros) / 1000 / Math.max(1, last.at - first.at);
  expect(cpuShare, `CPU ${(cpuShare * 100).toFixed(0)} % of a core`).to.be.lessThan(MAX_CPU_SHARE);
}

