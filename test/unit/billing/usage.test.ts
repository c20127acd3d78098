import { expect } from 'chai';
import { createUsage, type UsageFields } from '../../../src/billing/usage.js';

describe('usage', () => {
  it('keeps what was reported, a reported 0 included, and leaves out what was not', () => {
    expect(createUsage({ inputTokens: 12, cachedInputTokens: 0, outputTokens: undefined })).to.deep.equal({ version: 2, inputTokens: 12, cachedInputTokens: 0 });
    expect(createUsage()).to.deep.equal({ version: 2 });
  });

  it('is plain JSON, with no undefined left for the event store to refuse', () => {
    const usage = createUsage({ images: 2, inputTokens: undefined, counted: true });
    expect(JSON.parse(JSON.stringify(usage))).to.deep.equal(usage);
    expect(Object.values(usage)).not.to.include(undefined);
  });

  it('copies only usage fields, whatever else the object it is given carries', () => {
    const other = { outputTokens: 3, version: 1, total_tokens: 9 } as unknown as UsageFields;
    expect(createUsage(other)).to.deep.equal({ version: 2, outputTokens: 3 });
  });
});
