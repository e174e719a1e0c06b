// ESLint, flat config: JavaScript's and typescript-eslint's recommended rules for the whole tree, and React's
// rules of hooks for the page. Not type-aware: `tsc --noEmit` already checks types (strict), and type-aware
// linting would run the compiler a second time. Formatting is Prettier's (.prettierrc.json), never ESLint's.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // Build output, benchmark results and caches, and generated code (the ONNX schema, the WebAssembly kernels).
    ignores: [
      'dist/**',
      'dist-*/**',
      'node_modules/**',
      'bench/results/**',
      'bench/tmp/**',
      '.cache/**',
      'test-results/**',
      'playwright-report/**',
      '.test-reports/**',
      'src/core/onnx/proto/**',
      '**/*KernelWasm.ts',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.browser, ...globals.worker, ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A leading underscore marks a value left out on purpose (a field dropped by destructuring, an unused
      // parameter of a callback's fixed signature): the codebase's existing convention.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    files: ['src/ui/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
);
