import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import retrySafe from './scripts/lint/boundaries.js';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', 'scenarios-out/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    plugins: { 'retry-safe': retrySafe },
    rules: {
      // Packages never import apps, apps never import each other, the idempotency core knows no driver: see the rule.
      'retry-safe/boundaries': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@retry-safe/*/src/*', '@retry-safe/*/dist/*'],
              message: 'Use the package entry (or one of its `exports` subpaths), never its files.',
            },
          ],
        },
      ],
    },
  },
  {
    // Only apps read process.env; libraries take typed options.
    files: ['packages/idempotency/src/**', 'packages/fault-injection/src/**', 'packages/http-client/src/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Libraries take typed options; only apps read process.env.',
        },
      ],
    },
  },
);
