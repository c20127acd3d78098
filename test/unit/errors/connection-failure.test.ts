import { expect } from 'chai';
import { isConnectionFailure } from '../../../src/errors/connection-failure.js';

/** Which errors are a store being away (503) rather than a fault of the gateway (500). */
describe('isConnectionFailure', () => {
  const failures: Array<[string, unknown]> = [
    ['a refused socket', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['a reset socket', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['pg losing its connection', new Error('Connection terminated unexpectedly')],
    ['pg waiting for a pool connection', new Error('timeout exceeded when trying to connect')],
    ['Postgres shutting down', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['a Postgres connection exception (class 08)', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['ioredis with its connection closed', new Error('Connection is closed.')],
    ['ioredis timing a command out', new Error('Command timed out')],
    ['EventStoreDB unavailable', Object.assign(new Error('14 UNAVAILABLE: No connection established'), { type: 'unavailable' })],
    ['a wrapped connection failure', new Error('append failed', { cause: Object.assign(new Error('x'), { code: 'ETIMEDOUT' }) })],
  ];
  for (const [name, error] of failures) it(`counts ${name}`, () => expect(isConnectionFailure(error)).to.equal(true));

  const faults: Array<[string, unknown]> = [
    ['a type error', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['a unique violation', Object.assign(new Error('duplicate key value'), { code: '23505' })],
    ['a Lua script error', new Error('ERR Error running script')],
    ['a thrown string', 'Connection terminated'],
    ['nothing', undefined],
  ];
  for (const [name, error] of faults) it(`does not count ${name}`, () => expect(isConnectionFailure(error)).to.equal(false));
});
