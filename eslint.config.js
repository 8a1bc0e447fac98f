import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', 'scenarios-out/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/apps/**', '@retry-safe/*/src/*', '@retry-safe/*/dist/*'],
              message: 'Use the package entry; packages never import apps.',
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
