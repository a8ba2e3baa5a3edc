// Three projects: unit specs beside the code, e2e tests that boot the app on the real store,
// and the storage contract suite that CI runs against both stores (Postgres+Redis, PGlite+memory).
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

module.exports = {
  testTimeout: 60_000,
  maxWorkers: 2,
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'] },
    { ...base, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'] },
    { ...base, displayName: 'contract', testMatch: ['<rootDir>/test/contract/**/*.contract-spec.ts'] },
  ],
};
