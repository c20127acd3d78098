import { expect } from 'chai';
import { secretDetector } from '../../../../src/pii/detectors/secret-detector.js';
import { found } from './found.js';

describe('pii: secret detector', () => {
  it('finds API keys by their prefixes, JSON Web Tokens and bearer tokens', () => {
    const keys = [
      'sk-proj-4fT9xK2mQ8vL1nR7bW3cY6hJ0pZ5sD',
      'sk-ant-api03-Xy9_kL2mN4pQ6rS8tU0vW1xY3zA5bC7dE',
      'sk-gw-0123456789abcdef0123456789abcdef',
      'ghp_16C7e42F292c6912E7710c838347Ae178B4a',
      'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz',
      'glpat-xYz123AbC456dEf789gH',
      'xoxb-123456789012-abcdefghijkl',
      'sk_live_4eC39HqLyjWDarjtT1zdp7dc',
      'AKIAIOSFODNN7EXAMPLE',
      'AIzaSyD-1234567890abcdefghijklmnopqrstu',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    ];
    expect(found(secretDetector, keys.map((key) => `key: ${key}.`).join(' '))).to.deep.equal(keys);
    expect(found(secretDetector, 'Authorization: Bearer 8f14e45fceea167a5a36dedd4bea2543xyz')).to.deep.equal(['8f14e45fceea167a5a36dedd4bea2543xyz']);
  });

  it('leaves near misses: short or unprefixed lookalikes, UUIDs, hashes, the word token', () => {
    for (const text of [
      'use sk-learn for this',
      'task-1234 and sk-12',
      'uuid 123e4567-e89b-12d3-a456-426614174000',
      'commit 3f786850e387550fdab836ed7e6dc881de23001b',
      'send a Bearer token in the header',
      'ghp_short',
      'AKIA1234',
    ]) {
      expect(found(secretDetector, text), text).to.deep.equal([]);
    }
  });
});
