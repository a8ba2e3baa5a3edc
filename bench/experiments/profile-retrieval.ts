/* Retrieval profiler: RetrievalService.retrieve on a seeded bench database, every statement it sends
 * recorded (statements per question, by mode), then run again under EXPLAIN (ANALYZE, BUFFERS):
 * p50 execution, planning and buffers per statement; the results are written to <out.json> so two
 * builds can be compared row for row. `npm run bench -- explain` covers only the floor's statements.
 * Usage: DATABASE_URL=… npx tsx bench/experiments/profile-retrieval.ts <questions.json> <out.json> [n] [modes] [noexplain]
 * (PLAN=<label> prints one plan; DUMP=<prefix> writes the statements of the last question).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Pool } from 'pg';
import { PostgresDatabase } from '../../libs/db/src/postgres.database';
import { SESSION_SETTINGS } from '../../libs/db/src/database';
import { RetrievalService } from '../../libs/retrieval/src/retrieval.service';
import { benchRequests } from './bench-question-requests';
import { labelOf } from './profile-retrieval-labels';

const [questionsPath, outPath, countArg, modesArg, explainArg] = process.argv.slice(2);
const count = Number(countArg ?? 20);
const modes = (modesArg ?? 'naive,local,global,hybrid,mix').split(',') as Array<'naive' | 'local' | 'global' | 'hybrid' | 'mix'>;
const explain = explainArg !== 'noexplain';
const printed = new Set<string>();

async function main() {
  const file = JSON.parse(readFileSync(questionsPath, 'utf8'));
  const questions = file.questions.slice(0, count);
  const url = new URL(process.env.DATABASE_URL!);
  url.searchParams.set('options', Object.entries(SESSION_SETTINGS).map(([k, v]) => `-c ${k}=${v}`).join(' '));
  const database = PostgresDatabase.connect(url.toString(), 4);
  const pool = (database as unknown as { pool: Pool }).pool;
  const recorded: Array<{ text: string; values: unknown[] }> = [];
  const original = pool.query.bind(pool) as (...a: unknown[]) => unknown;
  (pool as unknown as { query: unknown }).query = (config: unknown, values?: unknown, cb?: unknown) => {
    const c = config as { text?: string; values?: unknown[] };
    if (typeof config === 'object' && c.text) recorded.push({ text: c.text, values: c.values ?? (Array.isArray(values) ? values : []) });
    else if (typeof config === 'string') recorded.push({ text: config, values: (values as unknown[]) ?? [] });
    return original(config, values, cb);
  };
  const service = new RetrievalService(database);
  const requestFor = benchRequests(file);
  const results: Record<string, unknown[]> = {};
  const counts: Record<string, number[]> = {};
  const perStatement: Record<string, Record<string, { exec: number[]; plan: number[]; buffers: number[] }>> = {};
  for (const mode of modes) {
    results[mode] = [];
    counts[mode] = [];
    perStatement[mode] = {};
    for (const q of questions) {
      recorded.length = 0;
      const context = await service.retrieve(requestFor(mode, q));
      const { timings: _t, ...rest } = context as unknown as Record<string, unknown>;
      results[mode].push(rest);
      counts[mode].push(recorded.length);
      if (!explain) continue;
      const statements = [...recorded];
      if (process.env.DUMP) writeFileSync(`${process.env.DUMP}-${mode}.json`, JSON.stringify(statements));
      for (const s of statements) {
        const label = labelOf(s.text);
        if (process.env.PLAN === label && !printed.has(label)) {
          printed.add(label);
          const text = (await original({ text: `EXPLAIN (ANALYZE, BUFFERS) ${s.text}`, values: s.values }) as { rows: Array<Record<string, string>> }).rows;
          console.log(text.map((r) => r['QUERY PLAN']).join('\n'));
        }
        const [row] = (await original({ text: `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${s.text}`, values: s.values }) as { rows: Array<Record<string, unknown>> }).rows;
        const plan = (row['QUERY PLAN'] as Array<Record<string, unknown>>)[0];
        const top = plan.Plan as Record<string, number>;
        const entry = (perStatement[mode][label] ??= { exec: [], plan: [], buffers: [] });
        entry.exec.push(Number(plan['Execution Time']));
        entry.plan.push(Number(plan['Planning Time']));
        entry.buffers.push((top['Shared Hit Blocks'] ?? 0) + (top['Shared Read Blocks'] ?? 0));
      }
    }
  }
  writeFileSync(outPath, JSON.stringify(results));
  const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  for (const mode of modes) {
    const c = counts[mode];
    console.log(`${mode}: statements per question min ${Math.min(...c)} max ${Math.max(...c)} mean ${(c.reduce((a, b) => a + b, 0) / c.length).toFixed(1)}`);
    let exec = 0;
    let plan = 0;
    for (const [label, e] of Object.entries(perStatement[mode])) {
      exec += p50(e.exec) * (e.exec.length / c.length);
      plan += p50(e.plan) * (e.exec.length / c.length);
      console.log(`  ${label.padEnd(28)} n=${String(e.exec.length).padStart(3)} exec p50 ${p50(e.exec).toFixed(2)} ms  plan p50 ${p50(e.plan).toFixed(2)} ms  buffers p50 ${p50(e.buffers)}`);
    }
    if (explain) console.log(`  total (p50 × share)          exec ${exec.toFixed(2)} ms  plan ${plan.toFixed(2)} ms`);
  }
  await database.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
