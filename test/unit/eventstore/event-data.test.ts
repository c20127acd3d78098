import { expect } from 'chai';
import { findNonJson, jsonObjectSchema } from '../../../src/eventstore/event-data.js';
import { DEEP, deeplyNested } from '../../support/deep-json.js';

/** The recursive check the iterative one replaced, kept as the reference for what the answers must be. */
function recursiveFindNonJson(value: unknown, path = '$'): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      if (!Number.isFinite(value)) return `${path} is not a finite number`;
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) return `${path} is an integer beyond 2^53 (send it as a string)`;
      return undefined;
    case 'object': {
      if (value === null) return undefined;
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++) {
          const problem = recursiveFindNonJson(value[index], `${path}[${index}]`);
          if (problem) return problem;
        }
        return undefined;
      }
      const prototype: unknown = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return `${path} is not a plain object`;
      for (const [key, child] of Object.entries(value)) {
        const problem = recursiveFindNonJson(child, `${path}.${key}`);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'bigint':
      return `${path} is a bigint (send amounts as strings of integer nanodollars)`;
    case 'undefined':
    case 'function':
    case 'symbol':
      return `${path} is ${typeof value}, which JSON cannot hold`;
  }
}

const CASES: ReadonlyArray<[string, unknown]> = [
  ['plain event data', { amount: '150000000', reason: 'top-up', usage: { inputTokens: 12, outputTokens: 3 }, tags: ['a', 'b'], none: null, ok: true }],
  ['a scalar', 'text'],
  ['an empty object and array', { a: {}, b: [] }],
  ['a bigint amount', { amount: 150n }],
  ['NaN deep in an array', { list: [1, [2, Number.NaN]] }],
  ['an unsafe integer', { n: 2 ** 60 }],
  ['a Date', { at: new Date(0) }],
  ['a class instance in an array', [{ ok: 1 }, new Map()]],
  ['an object without prototype', Object.assign(Object.create(null) as object, { x: 1 })],
  ['undefined', { a: 1, b: undefined }],
  ['a hole', [1, , 3]],
  ['a function after a good sibling', { first: { ok: 'yes' }, second: [() => 1] }],
  ['two problems: the first one in key order wins', { a: [1, { b: 2n }], c: Number.POSITIVE_INFINITY }],
  ['a symbol', { s: Symbol('x') }],
];

describe('event data: plain JSON check at any depth', () => {
  it('gives the same answer as the recursive check', () => {
    for (const [name, value] of CASES) {
      expect(findNonJson(value), name).to.equal(recursiveFindNonJson(value));
      expect(findNonJson(value, '$.data'), name).to.equal(recursiveFindNonJson(value, '$.data'));
    }
    expect(findNonJson({ amount: 150n })).to.equal('$.amount is a bigint (send amounts as strings of integer nanodollars)');
  });

  it(`checks data nested ${DEEP.toLocaleString('en')} and 100,000 levels deep without throwing`, () => {
    for (const depth of [DEEP, 100_000]) {
      expect(findNonJson({ data: deeplyNested(depth) })).to.equal(undefined);
      expect(jsonObjectSchema.safeParse({ data: deeplyNested(depth) }).success).to.equal(true);
    }
  });

  it('names the exact path of a problem at the bottom of a deep value', () => {
    const problem = findNonJson({ data: deeplyNested(DEEP, null), late: 1n });
    expect(problem).to.equal('$.late is a bigint (send amounts as strings of integer nanodollars)');
    const deep = findNonJson(deeplyNested(4, Number.NaN));
    expect(deep).to.equal('$.a[0].a[0] is not a finite number');
    const bottom = findNonJson(deeplyNested(DEEP, Number.NaN));
    expect(bottom).to.equal(`$${'.a[0]'.repeat(DEEP / 2)} is not a finite number`);
  });
});
