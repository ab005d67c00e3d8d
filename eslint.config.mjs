import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'cdk.out/**', 'dist/**', 'test/**/__snapshots__/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-imports': 'off',
    },
  },
  {
    // lib/ is pure: no CDK, no AWS SDK, no network or filesystem, so the CLI, the Lambdas and the tests share it cheaply
    // and `cdk-inferentia/planner` loads nothing it does not use. What calls AWS or the network is io/ (docs/architecture.md).
    files: ['lib/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        'aws-cdk-lib', 'aws-cdk-lib/*', 'constructs', 'cdk-nag', '@aws-sdk/*', '@smithy/*', 'undici',
        'fs', 'node:fs', 'fs/*', 'node:fs/*', 'child_process', 'node:child_process', 'net', 'node:net',
        'http', 'node:http', 'https', 'node:https',
        '**/io', '**/io/*', '**/constructs', '**/constructs/*', '**/bin/*', '**/lambdas/*',
      ] }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Only bin/ reads the environment.' }],
    },
  },
  {
    // Constructs run at synth: they never load the edge (AWS clients) or a handler's code; handlers bundle their own.
    files: ['constructs/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/io', '**/io/*', '**/lambdas/*', '@aws-sdk/*', 'undici'] }],
    },
  },
);
