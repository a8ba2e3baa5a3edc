/* The PostgreSQL CPU of one kind of retrieval statement against a variant of its text: a mix (or
 * other mode) question's statements of `label` (profile-retrieval-labels.ts) are recorded, then
 * each is run as written and with `from` (a regular expression) replaced by `to`, alternately,
 * `rounds` times, on one connection; backend CPU per statement from /proc. Rows are compared
 * too (a variant that changes what comes back says so). For trying a rewrite before making it.
 * Usage: DATABASE_URL=… npx tsx bench/experiments/statement-variant.ts <questions.json> <label> <from> <to> [questions] [rounds] [mode]
 */
import { readFileSync } from 'node:fs';
import { Pool } from 'pg';
import { PostgresDatabase, withSessionSettings } from '../../libs/db/src/postgres.database';
import type { RetrievalMode } from '../../libs/retrieval/src/retrieval.types';
import { RetrievalService } from '../../libs/retrieval/src/retrieval.service';
import { backendCpuMs } from './backend-cpu';
import { labelOf } from './profile-retrieval-labels';
import { benchRequests } from './bench-question-requests';

const [questionsPath, label, from, to, countArg, roundsArg, modeArg] = process.argv.slice(2);
async function main() {
  const file = JSON.parse(readFileSync(questionsPath, 'utf8'));
  const questions = file.questions.slice(0, Number(countArg ?? 40));
  const rounds = Number(roundsArg ?? 5);
  const mode = (modeArg ?? 'mix') as RetrievalMode;
  const database = PostgresDatabase.connect(withSessionSettings(process.env.DATABASE_URL!), 1);
  const pool = (database as unknown as { pool: Pool }).pool;
  const recorded: Array<{ text: string; values: unknown[] }> = [];
  const original = pool.query.bind(pool) as (...a: unknown[]) => Promise<{ rows: unknown[] }>;
  (pool as unknown as { query: unknown }).query = (config: { text?: string; values?: unknown[] }, values?: unknown, callback?: unknown) => {
    if (typeof config === 'object' && config.text && labelOf(config.text) === label) {
      recorded.push({ text: config.text, values: config.values ?? (Array.isArray(values) ? values : []) });
    }
    return original(config, values, callback);
  };
  const requestFor = benchRequests(file);
  const service = new RetrievalService(database);
  for (const q of questions) await service.retrieve(requestFor(mode, q));
  if (recorded.length === 0) throw new Error(`no statement labelled ${label}`);
  const pattern = new RegExp(from, 'g');
  const variants = recorded.map((s) => ({ text: s.text.replace(pattern, to), values: s.values }));
  if (variants.every((v, i) => v.text === recorded[i].text)) throw new Error('the pattern changes no statement');
  const pid = Number(((await original('SELECT pg_backend_pid() AS pid')).rows[0] as { pid: number }).pid);
  let differ = 0;
  for (let i = 0; i < recorded.length; i++) {
    const a = JSON.stringify((await original({ text: recorded[i].text, values: recorded[i].values })).rows);
    const b = JSON.stringify((await original({ text: variants[i].text, values: variants[i].values })).rows);
    if (a !== b) differ++;
  }
  const cpu = { as: 0, variant: 0 };
  for (let round = 0; round < rounds; round++) {
    for (const [key, list] of [['as', recorded], ['variant', variants]] as const) {
      const before = backendCpuMs(pid);
      for (const s of list) await original({ text: s.text, values: s.values });
      cpu[key] += backendCpuMs(pid) - before;
    }
  }
  const per = (ms: number) => (ms / rounds / recorded.length).toFixed(2);
  console.log(`${label}: ${recorded.length} statements, as written ${per(cpu.as)} ms, variant ${per(cpu.variant)} ms of PostgreSQL CPU each; rows differ in ${differ}`);
  await database.close();
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
