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
    // lib/ is pure: no CDK, so the CLI, the Lambdas and the tests share it cheaply.
    files: ['lib/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['aws-cdk-lib', 'aws-cdk-lib/*', 'constructs', 'cdk-nag'] }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Only bin/ reads the environment.' }],
    },
  },
);
