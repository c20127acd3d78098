import { expect } from 'chai';
import { jsonNestingDepthExceeds } from '../../../src/formats/json-value.js';
import { DEEP, deeplyNested, deeplyNestedText } from '../../support/deep-json.js';

describe('formats: JSON nesting depth', () => {
  it('counts every array and object on the way down, scalars as nothing', () => {
    expect(jsonNestingDepthExceeds('text', 0)).to.equal(false);
    expect(jsonNestingDepthExceeds(null, 0)).to.equal(false);
    expect(jsonNestingDepthExceeds({}, 0)).to.equal(true);
    expect(jsonNestingDepthExceeds({}, 1)).to.equal(false);
    expect(jsonNestingDepthExceeds([[]], 1)).to.equal(true);
    expect(jsonNestingDepthExceeds({ a: [1, { b: null }] }, 3)).to.equal(false);
    expect(jsonNestingDepthExceeds({ a: [1, { b: [] }] }, 3)).to.equal(true);
    expect(jsonNestingDepthExceeds([[1], [[2]]], 2)).to.equal(true);
    expect(jsonNestingDepthExceeds([[1], [[2]]], 3)).to.equal(false);
    expect(jsonNestingDepthExceeds({ a: { b: 1 } }, 1)).to.equal(true);
  });

  it('finds the deep branch wherever it is, next to wide shallow ones', () => {
    const wide = Array.from({ length: 10_000 }, (_, index) => ({ index, tags: ['x', 'y'] }));
    expect(jsonNestingDepthExceeds({ wide, last: deeplyNested(50) }, 50)).to.equal(true);
    expect(jsonNestingDepthExceeds({ first: deeplyNested(50), wide }, 50)).to.equal(true);
    expect(jsonNestingDepthExceeds({ first: deeplyNested(49), wide }, 50)).to.equal(false);
  });

  it('measures the exact depth of a value nested far deeper than the call stack goes', () => {
    for (const depth of [DEEP, 100_000]) {
      const value = deeplyNested(depth);
      expect(jsonNestingDepthExceeds(value, depth)).to.equal(false);
      expect(jsonNestingDepthExceeds(value, depth - 1)).to.equal(true);
      expect(jsonNestingDepthExceeds(value, 64)).to.equal(true);
    }
  });

  it('runs on what JSON.parse returns: V8 parses 100,000 levels, so the depth check comes after the parse', () => {
    const parsed: unknown = JSON.parse(deeplyNestedText(100_000));
    expect(jsonNestingDepthExceeds(parsed, 1_000)).to.equal(true);
  });
});
