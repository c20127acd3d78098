import { expect } from 'chai';
import { CostAccumulator, formatUsd, isUsdAmount, parseUsd } from '../../../src/billing/money.js';
import { withTokenizerMargin } from '../../../src/billing/reserve-margin.js';

/**
 * Edge cases of the money code that the basic money test leaves open: surrounding spaces, zero, zeros
 * inside the fraction, the largest amounts, negative balances, and rounding up exactly at a whole
 * nanodollar. Every expected amount is a literal worked out by hand.
 */
describe('money: parsing edge cases', () => {
  it('accepts an amount with spaces around it, as the admin API and the catalog receive them', () => {
    expect(parseUsd('  1.5\n')).to.equal(1_500_000_000n);
    expect(isUsdAmount(' 0.15 ')).to.equal(true);
  });

  it('tells amounts from non-amounts the same way as parseUsd', () => {
    for (const text of ['0', '0.000000001', '999999999999.999999999', '10.00']) expect(isUsdAmount(text), text).to.equal(true);
    for (const text of ['-1', '1.', '.5', '1e3', '0.0000000001', '1 000', '1000000000000', '']) expect(isUsdAmount(text), text).to.equal(false);
  });

  it('keeps zeros inside the fraction and pads a short fraction on the right', () => {
    expect(parseUsd('0.000000001')).to.equal(1n);
    expect(parseUsd('1.05')).to.equal(1_050_000_000n); // 1 USD + 0.05 × 1e9
    expect(parseUsd('0.100000000')).to.equal(100_000_000n);
    expect(parseUsd('0')).to.equal(0n);
  });

  it('parses the largest amount exactly, beyond a double', () => {
    // 999,999,999,999 USD × 1e9 + 999,999,999 = 999,999,999,999,999,999,999 nanodollars (2^53 is about 9e15)
    expect(parseUsd('999999999999.999999999')).to.equal(999_999_999_999_999_999_999n);
  });

  it('names the text it refuses', () => {
    expect(() => parseUsd('12,50')).to.throw(RangeError, '"12,50" is not a USD amount (a non-negative decimal with at most 9 decimals)');
  });
});

describe('money: formatting edge cases', () => {
  it('writes zero as 0.00, without a sign', () => {
    expect(formatUsd(0n)).to.equal('0.00');
  });

  it('keeps zeros inside the fraction and drops only the trailing ones', () => {
    expect(formatUsd(1_050_000_000n)).to.equal('1.05');
    expect(formatUsd(1_000_000_010n)).to.equal('1.00000001');
    expect(formatUsd(100_000_000n)).to.equal('0.10');
    expect(formatUsd(123_000_000_000n)).to.equal('123.00');
  });

  it('writes negative amounts (an overdrawn balance) with a single leading minus', () => {
    expect(formatUsd(-1n)).to.equal('-0.000000001');
    expect(formatUsd(-1_050_000_000n)).to.equal('-1.05');
    expect(formatUsd(-10_000_000_000n)).to.equal('-10.00');
  });

  it('writes amounts beyond a double exactly, and round-trips with parseUsd', () => {
    expect(formatUsd(999_999_999_999_999_999_999n)).to.equal('999999999999.999999999');
    for (const text of ['0.000000001', '1.05', '0.10', '12345.678901234']) expect(formatUsd(parseUsd(text))).to.equal(text);
  });
});

describe('money: rounding up once', () => {
  it('rounds a total one millionth of a nanodollar over a whole nanodollar up to the next one', () => {
    // 1,000,001 tokens at 1 n$/Mtok = 1.000001 n$ → 2 n$; exactly 1,000,000 tokens = 1 n$, not 2.
    expect(new CostAccumulator().addPerMillion('input', 1_000_001, 1n).total()).to.equal(2n);
    expect(new CostAccumulator().addPerMillion('input', 1_000_000, 1n).total()).to.equal(1n);
  });

  it('rounds a fraction of an item up in millionths of a nanodollar, so the total stays an upper bound', () => {
    // 2,000,001 / 2,000,000 of an item at 1 n$ = 1.0000005 n$ = 1,000,000.5 millionths → 1,000,001 → 2 n$.
    // Rounding that part down would give 1,000,000 millionths = exactly 1 n$.
    expect(new CostAccumulator().addFraction('media', 2_000_001n, 2_000_000n, 1n).total()).to.equal(2n);
    // 60,000 ms of 60,000 at $0.006 = 6,000,000 n$ exactly: no rounding at all.
    expect(new CostAccumulator().addFraction('media', 60_000n, 60_000n, 6_000_000n).total()).to.equal(6_000_000n);
  });

  it('adds parts of every kind into one total', () => {
    // 10 tokens at $2/Mtok = 20,000 n$; 2 images at 40,000,000 n$ = 80,000,000 n$;
    // 1,500 ms at 6,000,000 n$ a minute = 1,500 × 6,000,000 / 60,000 = 150,000 n$. Sum 80,170,000 n$.
    const total = new CostAccumulator().addPerMillion('input', 10n, 2_000_000_000n).addPerItem('media', 2n, 40_000_000n).addFraction('media', 1_500n, 60_000n, 6_000_000n).total();
    expect(total).to.equal(80_170_000n);
  });
});

describe('tokenizer margin', () => {
  it('raises a count by a quarter, rounded up to a whole token', () => {
    // 0 → 0; 1 × 5/4 = 1.25 → 2; 4 × 5/4 = 5; 5 × 5/4 = 6.25 → 7; 1000 → 1250
    expect([0, 1, 4, 5, 1000].map(withTokenizerMargin)).to.deep.equal([0, 2, 5, 7, 1250]);
  });
});
