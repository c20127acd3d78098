import { expect } from 'chai';
import { Readable } from 'node:stream';
import { rangeSlice, requestedRange } from '../../../src/http/byte-range.js';

describe('byte ranges of a video file', () => {
  it('reads the three forms of a single range, cutting an end past the file', () => {
    expect(requestedRange('bytes=0-99', 1_000)).to.deep.equal({ start: 0, end: 99 });
    expect(requestedRange('bytes=900-', 1_000)).to.deep.equal({ start: 900, end: 999 });
    expect(requestedRange('bytes=-100', 1_000)).to.deep.equal({ start: 900, end: 999 });
    expect(requestedRange('bytes=990-2000', 1_000)).to.deep.equal({ start: 990, end: 999 });
    expect(requestedRange('bytes=-5000', 1_000)).to.deep.equal({ start: 0, end: 999 });
  });

  it('is unsatisfiable past the end, and the whole file for what it does not serve', () => {
    expect(requestedRange('bytes=1000-', 1_000)).to.equal('unsatisfiable');
    expect(requestedRange('bytes=-0', 1_000)).to.equal('unsatisfiable');
    for (const header of [undefined, 'bytes=0-1,5-9', 'items=0-9', 'bytes=9-2', 'bytes=-', 'nonsense']) expect(requestedRange(header, 1_000), String(header)).to.equal(undefined);
  });

  it('passes on exactly the bytes of the range across pieces, and ends there', async () => {
    const file = Buffer.from(Array.from({ length: 100 }, (_, index) => index));
    const pieces = [file.subarray(0, 7), file.subarray(7, 30), file.subarray(30, 31), file.subarray(31, 100)];
    const sliced: Buffer[] = [];
    for await (const chunk of Readable.from(pieces).pipe(rangeSlice({ start: 5, end: 40 }))) sliced.push(chunk as Buffer);
    expect(Buffer.concat(sliced).equals(file.subarray(5, 41))).to.equal(true);
  });
});
