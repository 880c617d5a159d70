// @ts-check
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'dist/', 'coverage/', 'test-artifacts/', 'scripts/tmp/', 'bench/data/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-floating-promises': ['error', {
        // node:test runs describe/it itself; their promises are not ours to await.
        allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }],
      }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      curly: ['error', 'multi-line'],
      'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // common/ is imported by the server and the browser bundles alike: only its own files, and
    // nothing of Node (the root tsconfig's Node types would let it compile) or the DOM (no DOM lib there).
    files: ['common/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!\\./)', message: 'common/ imports only files of common/.' }] }],
      'no-restricted-globals': ['error', 'process', 'Buffer', 'require', 'setImmediate', 'window', 'document', 'navigator', 'location'],
    },
  },
  {
    // Plain JavaScript entry points, run before any TypeScript tooling: linted, not type-checked.
    files: ['eslint.config.js', '.dependency-cruiser.cjs', 'scripts/*.mjs', 'bin/*.mjs', 'bench/lib/*.mjs', 'test/fixtures/sentry/record/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', module: 'writable' } },
  },
)
