import { expect } from 'chai';
import { Placeholders } from '../../../src/pii/placeholders.js';
import { TextMasker, withoutOverlaps } from '../../../src/pii/text-masker.js';

describe('pii: text masker', () => {
  it('replaces each value by a placeholder of its kind, numbered by first appearance, the same value always alike', async () => {
    const placeholders = new Placeholders();
    const masker = new TextMasker(placeholders);
    const first = await masker.mask('Mail jane@example.com or bob@example.org; call +44 20 7946 0958.');
    const second = await masker.mask('Again: jane@example.com, and John Smith at 42 Baker Street.');
    expect(first).to.equal('Mail [EMAIL_1] or [EMAIL_2]; call [PHONE_1].');
    expect(second).to.equal('Again: [EMAIL_1], and [NAME_1] at [ADDRESS_1].');
    expect(placeholders.valueOf('[EMAIL_2]')).to.equal('bob@example.org');
    expect(placeholders.valueOf('[ADDRESS_1]')).to.equal('42 Baker Street');
    expect(placeholders.size).to.equal(5);
  });

  it('does not hand out a placeholder the client wrote itself', async () => {
    const placeholders = new Placeholders();
    placeholders.noteWritten({ note: 'my template uses [EMAIL_1] and [EMAIL_2]' });
    expect(await new TextMasker(placeholders).mask('write to jane@example.com')).to.equal('write to [EMAIL_3]');
    expect(placeholders.valueOf('[EMAIL_1]')).to.equal(undefined);
  });

  it('keeps, of overlapping finds, the better ranked kind, then the longer', () => {
    const spans = withoutOverlaps([
      { kind: 'NAME', start: 0, end: 10 },
      { kind: 'EMAIL', start: 0, end: 20 },
      { kind: 'PHONE', start: 30, end: 40 },
      { kind: 'PHONE', start: 32, end: 45 },
      { kind: 'IP', start: 50, end: 55 },
    ]);
    expect(spans).to.deep.equal([
      { kind: 'EMAIL', start: 0, end: 20 },
      { kind: 'PHONE', start: 32, end: 45 },
      { kind: 'IP', start: 50, end: 55 },
    ]);
  });

  it('leaves a text with nothing personal exactly as it was', async () => {
    const text = 'Refactor the parser: version 2.3.1, order 55123, 2024-03-01 10:42:17, $1,299.99, 123e4567-e89b-12d3-a456-426614174000.';
    expect(await new TextMasker(new Placeholders()).mask(text)).to.equal(text);
  });
});
