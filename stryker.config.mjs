// Mutation testing of the money code (`npm run mutation`, docs/mutation-testing.md). Not part of `npm test`:
// a run takes tens of minutes. Run it through the npm script, which gives the test runners their own
// database and Redis prefix and removes them afterwards (test/support/mutation/run-mutation.ts).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'mocha',
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  mutate: [
    'src/ledger/**/*.ts',
    'src/pipeline/reserve-step.ts',
    'src/pipeline/settle-step.ts',
    'src/pipeline/rate-limit-correction.ts',
    'src/pipeline/run-exchange.ts',
    'src/catalog/pricing.ts',
    'src/catalog/reserve-estimate.ts',
    'src/billing/**/*.ts',
    'src/access/key-decider.ts',
    'src/access/organization-decider.ts',
    'src/access/access-directory.ts',
    'src/ratelimit/**/*.ts',
  ],
  // The tests that exercise the money code: unit and integration tests of the deciders, pricing, ledger,
  // limiters and access directory, and the end-to-end money rules (the gateway in-process, so per-test
  // coverage sees it).
  mochaOptions: {
    'no-config': true,
    'no-package': true,
    spec: [
      'test/unit/**/*.test.ts',
      'test/int/ledger/**/*.test.ts',
      'test/int/pipeline/**/*.test.ts',
      'test/int/access/**/*.test.ts',
      'test/int/ratelimit/**/*.test.ts',
      'test/int/projections/ledger-projection.test.ts',
      // every money-rule suite but gateway-sweeper-schedule.test.ts, which waits out a real 30 s interval
      'test/e2e/money-rules/spend-scopes.test.ts',
      'test/e2e/money-rules/spend-periods.test.ts',
      'test/e2e/money-rules/reserve-and-settle-amounts.test.ts',
      'test/e2e/money-rules/token-rate-window.test.ts',
      'test/e2e/money-rules/reservation-deadline.test.ts',
      'test/e2e/money-rules/access-fences-across-instances.test.ts',
      'test/e2e/money-rules/failed-requests.test.ts',
      'test/e2e/access.test.ts',
      'test/e2e/rate-limit-admission.test.ts',
      'test/e2e/ledger-read-models.test.ts',
      'test/e2e/chat-completions.test.ts',
      'test/e2e/request-log.test.ts',
      'test/e2e/messages-stream-usage.test.ts',
    ],
    require: ['test/support/mutation/mutation-hooks.ts'],
  },
  testRunnerNodeArgs: ['--import', 'tsx', '--expose-gc'],
  coverageAnalysis: 'perTest',
  // Module-level mutants would need a fresh process per mutant with every test: far too slow here.
  ignoreStatic: true,
  concurrency: 1,
  timeoutMS: 10000,
  reporters: ['html', 'json', 'clear-text', 'progress'],
  clearTextReporter: { reportTests: false, reportMutants: false },
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  ignorePatterns: ['.data', 'dist', '.bench', 'reports', '.scratch', '.stryker-tmp'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
