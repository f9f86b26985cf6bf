// ESLint flat config: typescript-eslint's recommended rules over src/, test/ and bench/, and the
// dependency rule of src/ (scripts/eslint-rules/layers.js; docs/architecture.md, "Layers").
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import { plugin as layers } from './scripts/eslint-rules/layers.js'

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'stubs/**', 'demo/**', 'test-results/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setImmediate: 'readonly', queueMicrotask: 'readonly', performance: 'readonly', fetch: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', structuredClone: 'readonly', URLSearchParams: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-unsafe-declaration-merging': 'off',
      'no-control-regex': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { trowel: layers },
    rules: {
      'trowel/layers': 'error',
      'trowel/layers-allowlist': 'warn',
      // One concern per file: none over 400 lines, tests included.
      'max-lines': ['error', { max: 400 }],
    },
  },
)
