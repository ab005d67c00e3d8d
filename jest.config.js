/**
 * Tests that judge latency against a real local server. They run after the others, one at a time
 * (`jest.timing.config.js`): beside esbuild bundles, synths, moto_server and stand-in processes on CI's 2 cores they
 * saw stalls of a second (a capacity proof's p99 1,004 ms against 400) that measured the machine, not the code.
 */
const TIMING_TESTS = [
  '<rootDir>/test/io/bench/engine-http.test.ts',
  '<rootDir>/test/io/bench/token-stream.test.ts',
  '<rootDir>/test/lambdas/smoke-benchmark/capacity.test.ts',
];

const os = require('os');

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...TIMING_TESTS.map((p) => p.replace(/\./g, '\\.'))],
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
  // aws-cdk-lib's CloudFormation validation off unless a file keeps it (about half the CPU of a construct suite).
  setupFiles: ['<rootDir>/test/support/cfn-validation.ts'],
  // CDK synth with NodejsFunction bundling and real local servers take longer than jest's 5 s default.
  testTimeout: 120_000,
  // One worker more than the cores: about 100 s of suites wait on real servers and timeouts (tokens.test.ts 39 s,
  // control-plane-timeouts.test.ts 24 s, ...) and hold a worker without using its core, so with one worker per core a
  // core sat idle meanwhile. On CI's 2 cores, from the same clone and cache: 3 workers 290 s, 2 workers 359 s (jest's
  // default single worker took 348 s against 272 s for 2, an earlier suite).
  // (Not '150%': jest reads a percentage above 100 as a count.)
  maxWorkers: os.availableParallelism() + 1,
};
// For jest.timing.config.js; not enumerable, so jest does not read it as an (unknown) option.
Object.defineProperty(module.exports, 'TIMING_TESTS', { value: TIMING_TESTS, enumerable: false });
