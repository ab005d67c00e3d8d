/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
  // CDK synth with NodejsFunction bundling and real local servers take longer than jest's 5 s default.
  testTimeout: 120_000,
  // One worker per core, not jest's cores - 1: most suites wait on esbuild, synth or local servers, and on CI's 2 cores
  // the default single worker left a core idle (348 s against 272 s for the suite).
  maxWorkers: '100%',
};
