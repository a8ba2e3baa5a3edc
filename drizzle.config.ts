import { defineConfig } from 'drizzle-kit';

// Generates SQL migrations from the schema; `npm run db:generate -- --name <what>`.
export default defineConfig({
  dialect: 'postgresql',
  schema: './libs/db/src/schema/index.ts',
  out: './migrations',
});
