// Lints an OpenAPI document with Redocly's recommended rules (the rules `redocly lint` applies by
// default) and prints each problem as a line; exits 1 when any is an error. `npm run lint:openapi`
// runs it on the committed document (packages/client/openapi.json), the OpenAPI e2e test on the
// served one. An ES module: @redocly/openapi-core is ESM-only, which jest's CommonJS cannot load.
import { createConfig, lint } from '@redocly/openapi-core';

const file = process.argv[2] ?? 'packages/client/openapi.json';
const config = await createConfig({ extends: ['recommended'] });
const problems = await lint({ ref: file, config });
const lines = problems.map((p) => ({ severity: p.severity, rule: p.ruleId, message: p.message, at: p.location?.[0]?.pointer }));
if (process.argv.includes('--json')) process.stdout.write(JSON.stringify(lines));
else for (const line of lines) console.log(`${line.severity} ${line.rule} ${line.at}: ${line.message}`);
process.exitCode = lines.some((line) => line.severity === 'error') ? 1 : 0;
