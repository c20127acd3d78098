import { expect } from 'chai';
import { AuditUsageError, parseAuditArgs } from '../../../src/audit/audit-command.js';

describe('npm run audit: arguments', () => {
  const now = new Date('2026-11-23T15:00:00.000Z');

  it('defaults to this month so far, by day, as a table', () => {
    expect(parseAuditArgs([], now)).to.deep.equal({
      command: 'report',
      filter: { orgId: undefined, from: '2026-11-01', to: '2026-11-23', groupBy: 'day' },
      format: 'table',
      reconcile: false,
    });
    expect(parseAuditArgs(['--org', 'org_1', '--from', '2026-10-01', '--to', '2026-10-31', '--group-by', 'space', '--format', 'csv', '--reconcile'], now)).to.deep.equal({
      command: 'report',
      filter: { orgId: 'org_1', from: '2026-10-01', to: '2026-10-31', groupBy: 'space' },
      format: 'csv',
      reconcile: true,
    });
    expect(parseAuditArgs(['verify', '--org', 'org_1'], now)).to.include({ command: 'verify' });
  });

  for (const [args, message] of [
    [['--group-by', 'colour'], '--group-by'],
    [['--format', 'xml'], '--format'],
    [['--from', 'yesterday'], '--from'],
    [['--to', '2026-13-40'], '--to'],
    [['--from', '2026-11-02', '--to', '2026-11-01'], 'after'],
    [['verify', '--format', 'csv'], 'verify takes only --org'],
    [['make-coffee'], 'unknown command'],
    [['--colour'], 'Unknown option'],
  ] as const) {
    it(`refuses ${args.join(' ')}`, () => {
      expect(() => parseAuditArgs(args, now)).to.throw(AuditUsageError, message);
    });
  }
});
