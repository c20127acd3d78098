// Tests run TypeScript through tsx; the global setup makes sure Postgres and Redis answer
// and gives this run its own database and Redis key prefix (test/support/global-setup.ts).
// MOCHA_SPEC=path[,path…] runs only those files (mocha adds command-line specs to these, not instead).
module.exports = {
  'node-option': ['import=tsx', 'expose-gc'],
  require: ['test/support/global-setup.ts'],
  spec: process.env.MOCHA_SPEC
    ? process.env.MOCHA_SPEC.split(',')
    : ['test/unit/**/*.test.ts', 'test/int/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/reliability/**/*.test.ts'],
  timeout: 30000,
  exit: true,
};
