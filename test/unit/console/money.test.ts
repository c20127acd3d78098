import { expect } from 'chai';
import { formatLimits, formatUsd, formatUsdChange, formatUsdOrNone, formatUsdTick } from '../../../src/console/money.js';

describe('console money formatting', () => {
  it('writes the API amount with a dollar sign, thousands separators and every digit it has', () => {
    expect(formatUsd('0.00007')).to.equal('$0.00007');
    expect(formatUsd('0.000456')).to.equal('$0.000456');
    expect(formatUsd('25.00')).to.equal('$25.00');
    expect(formatUsd('1234567.5')).to.equal('$1,234,567.50');
    expect(formatUsd('12')).to.equal('$12.00');
    expect(formatUsd('-0.2')).to.equal('-$0.20');
    expect(formatUsd('0.000000001')).to.equal('$0.000000001');
  });

  it('keeps digits a float would lose', () => {
    expect(formatUsd('123456789012.123456789')).to.equal('$123,456,789,012.123456789');
    expect(formatUsd('9007199254.740993001')).to.equal('$9,007,199,254.740993001');
  });

  it('shows what is not an amount as it came, and a dash for none', () => {
    expect(formatUsd('n/a')).to.equal('n/a');
    expect(formatUsdOrNone(null)).to.equal('—');
    expect(formatUsdOrNone(undefined, 'none')).to.equal('none');
    expect(formatUsdOrNone('5')).to.equal('$5.00');
    expect(formatLimits({ daily_usd: '7.5', monthly_usd: null })).to.equal('daily $7.50, monthly —');
  });

  it('labels chart ticks in fixed notation with the decimals they need, never 7.00000E-5', () => {
    expect(formatUsdTick(0.00007000000000000001)).to.equal('$0.00007');
    expect(formatUsdTick(7e-5)).to.equal('$0.00007');
    expect(formatUsdTick(0.000025)).to.equal('$0.000025');
    expect(formatUsdTick(0)).to.equal('$0.00');
    expect(formatUsdTick(1500)).to.equal('$1,500.00');
    expect(formatUsdTick(0.30000000000000004)).to.equal('$0.30');
    expect(formatUsdTick(1e-12)).to.equal('$0.000000000001');
  });

  it('compares two amounts exactly, with their sign', () => {
    expect(formatUsdChange('0.001356', '0.00495')).to.equal('-$0.003594');
    expect(formatUsdChange('0.00135', '0.000006')).to.equal('+$0.001344');
    expect(formatUsdChange('12.50', '12.5')).to.equal('±$0.00');
    expect(formatUsdChange('-0.5', '1')).to.equal('-$1.50');
    expect(formatUsdChange('90071992547.409910001', '0.000000001')).to.equal('+$90,071,992,547.40991');
  });
});
