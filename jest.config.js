/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
  // CDK synth with NodejsFunction bundling and real local servers take longer than jest's 5 s default.
  testTimeout: 120_000,
};
