// Four projects: unit specs beside the code; the storage contract suite (run on both stores);
// the first-hour end-to-end tests, which `npm test` runs beside those two; and every other
// end-to-end test, which `npm run test:all` adds (CI runs it on PostgreSQL + Redis).
const { compilerOptions } = require('./tsconfig.json');

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [`^${alias}$`, `<rootDir>/${target}`]),
);

const base = {
  rootDir: __dirname,
  testEnvironment: 'node',
  moduleNameMapper,
  // Transpile only: `npm run typecheck` type-checks, and per-file type-checking doubles test time.
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
};

// End-to-end tests start the built server too: dist/ is built when missing (a fresh clone),
// before any worker starts.
const endToEnd = { ...base, globalSetup: '<rootDir>/test/support/build-once.js' };

// What a new user meets in the first hour, end to end on the store the environment selects
// (the embedded default on a fresh clone): start-up, sign-in and accounts, tenancy, uploads,
// both question contracts, streaming, MCP, the OpenAPI document, the console in a browser, the
// CLI, the embedded store's lock. Kept to a few minutes on 2 cores (README, "Two commands").
const FIRST_HOUR = [
  'smoke', 'health', 'first-run', 'data-directory-lock', 'bootstrap', 'auth', 'tenancy', 'http-errors',
  'documents', 'query', 'query-stream', 'no-answer-language', 'api-key-modes', 'live-descriptions', 'gb-remember', 'gb-query',
  'mcp', 'mcp-oauth', 'openapi', 'console', 'loci-cli',
];
const firstHourFile = (name) => `**/test/e2e/${name}.e2e-spec.ts`;

module.exports = {
  testTimeout: 60_000,
  maxWorkers: 2,
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'] },
    { ...base, displayName: 'contract', testMatch: ['<rootDir>/test/contract/**/*.contract-spec.ts'] },
    { ...endToEnd, displayName: 'first-hour', testMatch: FIRST_HOUR.map(firstHourFile) },
    { ...endToEnd, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts', ...FIRST_HOUR.map((name) => `!${firstHourFile(name)}`)] },
  ],
};
