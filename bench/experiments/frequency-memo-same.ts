/* Whether retrieval with BM25's document frequencies remembered (lexeme-frequencies.memo.ts,
 * record 0081) returns what it returns with every frequency counted: each question asked of a
 * service that has answered all questions before it (its memo warm) and of a new service (its
 * memo empty), in every mode, compared id for id and in order. Run on a store nothing is writing
 * to (a remembered frequency may lag ingestion by up to a minute, by design).
 * Usage: DATABASE_URL=… npx tsx bench/experiments/frequency-memo-same.ts <questions.json> [questions] [modes]
 */
import { readFileSync } from 'node:fs';
import { PostgresDatabase, withSessionSettings } from '../../libs/db/src/postgres.database';
import { RetrievalService } from '../../libs/retrieval/src/retrieval.service';
import { RetrievedContext } from '../../libs/retrieval/src/retrieval.types';
import { benchRequests } from './bench-question-requests';

type Mode = 'naive' | 'local' | 'global' | 'hybrid' | 'mix';
const [questionsPath, countArg, modesArg] = process.argv.slice(2);
async function main() {
  const file = JSON.parse(readFileSync(questionsPath, 'utf8'));
  const questions = file.questions.slice(0, Number(countArg ?? 100));
  const modes = (modesArg ?? 'naive,local,global,hybrid,mix').split(',') as Mode[];
  const database = PostgresDatabase.connect(withSessionSettings(process.env.DATABASE_URL!), 4);
  const requestFor = benchRequests(file);
  const ids = (c: RetrievedContext) => `e ${c.entities.map((e) => e.id)}\n r ${c.relations.map((x) => x.id)}\n c ${c.chunks.map((x) => x.chunkId)}`;
  const warm = new RetrievalService(database);
  // The memo learns the corpus first (a graph's stats are remembered from its first question).
  for (const q of questions) await warm.retrieve(requestFor('mix', q));
  let differ = 0;
  let asked = 0;
  for (const mode of modes) {
    for (const q of questions) {
      const remembered = ids(await warm.retrieve(requestFor(mode, q)));
      const counted = ids(await new RetrievalService(database).retrieve(requestFor(mode, q)));
      asked++;
      if (remembered !== counted && ++differ <= 3) console.log(`differs: ${mode} ${q.query}\n${counted}\n--- remembered:\n${remembered}`);
    }
  }
  console.log(`${asked} retrievals, ${differ} differ`);
  await database.close();
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
