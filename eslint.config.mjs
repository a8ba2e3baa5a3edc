// @ts-check
// `npm run lint`: ESLint with typescript-eslint's type-checked rules (issue 33.2). The rules that
// matter most here are the promise rules: a promise nobody awaits is an unhandled rejection
// waiting for a failure, and an unhandled rejection ends the process for every tenant.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** What Node gives a CommonJS or ES module script (bin/, jest.config.js, bench/*.cjs, asset converters). */
const NODE_GLOBALS = Object.fromEntries(
  [
    'require', 'module', 'exports', '__dirname', '__filename', 'process', 'console', 'Buffer', 'URL',
    'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'performance', 'structuredClone', 'fetch',
  ].map((name) => [name, 'readonly']),
);

export default defineConfig(
  {
    ignores: ['**/node_modules/', 'dist/', 'data/', 'coverage/', 'bench/results/', 'bench/data/', 'eval/results/', 'eval/.cache/'],
  },
  {
    files: ['**/*.{ts,tsx,mts,cts}'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        // Each file is checked in the program of its nearest tsconfig.json (the root one for
        // apps, libs, bench, eval and test; console/ and packages/client/ have their own).
        projectService: { allowDefaultProject: ['console/vite.config.mts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // The promise rules, stated even though recommendedTypeChecked has them: they are why this
      // config exists. Void-returning places (callbacks, JSX handlers) are checked too; a handler
      // that handles its own failures says so with `void`.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',

      // Off: values that are `any` by their source, not by mistake: supertest's response.body,
      // JSON.parse, rows of raw SQL (db.execute), untyped library results (compromise, pdf-parse,
      // SDK internals). They were 1 400 findings, almost all in tests reading responses; typing
      // each would restate the schemas the tests assert on. `strict` type-checking stays on.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Off: the in-memory stores (limits, kv, attempts) and local providers implement async
      // interfaces without awaiting anything; `async` keeps a synchronous throw a rejection, as
      // the Redis or network implementation's would be.
      '@typescript-eslint/require-await': 'off',
      // Off: stored values are read as `unknown` (raw rows) and caught errors are `unknown`; the
      // code turns them into text with String() or a template on purpose, and a log line that
      // says [object Object] is a lesser harm than a cast that hides what the value is.
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      // Off: the code matches control characters on purpose (stripping NUL and C0 controls from
      // text before it is stored or shown).
      'no-control-regex': 'off',
      // A leading underscore names what is left out on purpose (a destructured field dropped
      // from a row, an unused parameter of an interface).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The layers: libs/ sit under apps/ (the processes) and test/ (what needs a whole app), so
    // nothing in libs/ may import from either, libs/testing included: a helper that boots the
    // app lives in test/support/. A relative path into apps/ or test/ is what would break it;
    // the @loci/* aliases all name libraries.
    files: ['libs/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(apps|test)(/|$)',
              message: 'libs/ must not import from apps/ or test/ (the app is above them); move the code that needs the app next to its callers.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.{js,cjs,mjs}'],
    extends: [js.configs.recommended],
    languageOptions: { globals: NODE_GLOBALS },
  },
);
