import { expect } from 'chai';
import { overviewPeriods } from '../../../src/admin/overview-periods.js';

describe('overview periods', () => {
  it('holds today against yesterday, and this month so far against the same days of the month before', () => {
    expect(overviewPeriods(new Date('2026-11-10T15:30:00Z'))).to.deep.equal({
      today: '2026-11-10',
      yesterday: '2026-11-09',
      monthStart: '2026-11-01',
      previousMonthStart: '2026-10-01',
      previousMonthEnd: '2026-10-10',
    });
  });

  it('cuts the month before at its last day, and crosses the year', () => {
    expect(overviewPeriods(new Date('2026-03-31T00:00:00Z'))).to.deep.include({ previousMonthStart: '2026-02-01', previousMonthEnd: '2026-02-28' });
    expect(overviewPeriods(new Date('2028-03-30T23:59:59Z'))).to.deep.include({ previousMonthEnd: '2028-02-29' });
    expect(overviewPeriods(new Date('2027-01-01T00:00:00Z'))).to.deep.equal({
      today: '2027-01-01',
      yesterday: '2026-12-31',
      monthStart: '2027-01-01',
      previousMonthStart: '2026-12-01',
      previousMonthEnd: '2026-12-01',
    });
  });
});
