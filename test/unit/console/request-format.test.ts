import { expect } from 'chai';
import { formatDuration, formatOutcome, formatTime, formatUsage } from '../../../src/console/request-format.js';

describe('console request log formatting', () => {
  it('writes the kinds a request used, and every reported kind when asked', () => {
    const usage = { input_tokens: 1200, cached_input_tokens: 0, output_tokens: 7, reasoning_tokens: 0 };
    expect(formatUsage(usage)).to.equal('1,200 in, 7 out');
    expect(formatUsage(usage, true)).to.equal('1,200 in, 0 cached, 7 out, 0 reasoning');
    expect(formatUsage({ images: 2 })).to.equal('2 images');
    expect(formatUsage({ output_tokens: 30, counted: true })).to.equal('30 out (counted by the gateway)');
    expect(formatUsage(null)).to.equal('—');
  });

  it('writes durations, UTC times and outcomes', () => {
    expect([formatDuration(850), formatDuration(1_250), formatDuration(61_900), formatDuration(null)]).to.deep.equal(['850 ms', '1.3 s', '1 min 1 s', '—']);
    expect(formatTime('2026-11-20T14:03:09.123Z')).to.equal('2026-11-20 14:03:09');
    expect(formatOutcome({ status: 'released', release_reason: 'provider_error' })).to.equal('released (provider error)');
    expect(formatOutcome({ status: 'cut_off', release_reason: null })).to.equal('cut off');
  });
});
