import { expect } from 'chai';
import { CostAccumulator, formatUsd, parseUsd } from '../../../src/billing/money.js';

describe('money', () => {
  it('parses USD decimal strings into exact nanodollars', () => {
    expect(parseUsd('0.15')).to.equal(150_000_000n);
    expect(parseUsd('10')).to.equal(10_000_000_000n);
    expect(parseUsd('0.000000001')).to.equal(1n);
    expect(parseUsd('123456.789')).to.equal(123_456_789_000_000n);
  });

  it('refuses anything that is not a plain amount', () => {
    for (const text of ['-1', '1e3', '0.0000000001', 'abc', '', '1.2.3', ' ']) {
      expect(() => parseUsd(text), text).to.throw(RangeError);
    }
  });

  it('formats with every significant nanodollar and at least two decimals', () => {
    expect(formatUsd(10_000_000_000n)).to.equal('10.00');
    expect(formatUsd(1_500_000_000n)).to.equal('1.50');
    expect(formatUsd(1n)).to.equal('0.000000001');
    expect(formatUsd(-2_250_000_000n)).to.equal('-2.25');
    expect(formatUsd(parseUsd('0.123456789'))).to.equal('0.123456789');
  });

  it('sums cost parts exactly and rounds up once per request', () => {
    // 400,000 tokens at 1 nanodollar per million tokens = 0.4 nanodollars a part; two parts sum to 0.8 → 1, not 2.
    const cost = new CostAccumulator().addPerMillion('input', 400_000, 1n).addPerMillion('input', 400_000, 1n).total();
    expect(cost).to.equal(1n);
    // 3 tokens at $0.15/Mtok = 450 nanodollars
    expect(new CostAccumulator().addPerMillion('input', 3, parseUsd('0.15')).total()).to.equal(450n);
    expect(new CostAccumulator().total()).to.equal(0n);
    // 1,000,000 tokens at $0.60/Mtok is exactly $0.60.
    expect(new CostAccumulator().addPerMillion('input', 1_000_000, parseUsd('0.60')).total()).to.equal(600_000_000n);
    // 3 images at $0.04
    expect(new CostAccumulator().addPerItem('media', 3, parseUsd('0.04')).total()).to.equal(120_000_000n);
    // 90 s of audio at $0.006/min = $0.009
    expect(new CostAccumulator().addFraction('media', 90_000n, 60_000n, parseUsd('0.006')).total()).to.equal(9_000_000n);
  });
});
