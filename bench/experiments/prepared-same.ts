/* Whether retrieval with its exact statements prepared by name (record 0080; generic plans after
 * five executions) returns what it returns with every statement unnamed (a pool marked as behind
 * a transaction pooler): every question retrieved both ways, in every mode, twice (the second
 * pass on generic plans), compared id for id and in order.
 * Usage: DATABASE_URL=… npx tsx bench/experiments/prepared-same.ts <questions.json> [questions] [modes]
 */
import { readFileSync } from 'node:fs';
import { PostgresDatabase } from '../../libs/db/src/postgres.database';
import { SESSION_SETTINGS } from '../../libs/db/src/database';
import { RetrievalService } from '../../libs/retrieval/src/retrieval.service';
import { benchRequests } from './bench-question-requests';

type Mode = 'naive' | 'local' | 'global' | 'hybrid' | 'mix';
const [questionsPath, countArg, modesArg] = process.argv.slice(2);
async function main() {
  const file = JSON.parse(readFileSync(questionsPath, 'utf8'));
  const questions = file.questions.slice(0, Number(countArg ?? 200));
  const modes = (modesArg ?? 'naive,local,global,hybrid,mix').split(',') as Mode[];
  const url = new URL(process.env.DATABASE_URL!);
  url.searchParams.set('options', Object.entries(SESSION_SETTINGS).map(([k, v]) => `-c ${k}=${v}`).join(' '));
  const requestFor = benchRequests(file);
  const run = async (named: boolean) => {
    // A session URL marks the pool as pooled: nothing is named there.
    const database = PostgresDatabase.connect(url.toString(), 4, 0, named ? undefined : url.toString());
    const service = new RetrievalService(database);
    const out: string[] = [];
    for (let pass = 0; pass < 2; pass++) {
      out.length = 0;
      for (const mode of modes) for (const q of questions) {
        const r = await service.retrieve(requestFor(mode, q));
        out.push(`${mode} ${q.query}\n e ${r.entities.map((e) => e.id)}\n r ${r.relations.map((x) => x.id)}\n c ${r.chunks.map((c) => c.chunkId)}`);
      }
    }
    await database.close();
    return out;
  };
  const plain = await run(false);
  const named = await run(true);
  let differ = 0;
  for (let i = 0; i < plain.length; i++) if (plain[i] !== named[i]) { differ++; if (differ <= 5) console.log(`differs:\n${plain[i]}\n--- named:\n${named[i]}`); }
  console.log(`${plain.length} retrievals, ${differ} differ`);
}
main().catch((e) => { console.error(e); process.exit(1); });
