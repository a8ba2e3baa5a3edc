import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { INestApplication } from '@nestjs/common';
import { loadSettings } from '@loci/config';
import { Database, DATABASE, queryRows } from '@loci/db';
import { CallContext, ModelGateway, StageRunner } from '@loci/llm';
import { ChannelWeights, HASHING_EMBEDDER_WEIGHTS, RetrievalMode, RetrievalService } from '@loci/retrieval';
import { sql } from 'drizzle-orm';
import { createApp } from '../../apps/api/src/create-app';
import { Bm25Ranker, ENGLISH_ANALYZER } from './bm25';
import { defaultCorpusFolder, loadEvalSet } from './corpus';
import { mean, recallAt, round3 } from './metrics';
import { findRepoRoot } from './run';
import { scoreBaseline } from './scoring';

export const FIT_USAGE = `Usage: node dist/eval/src/fit-weights.js --store <LOCI_DATA_DIR of an eval store> [options]

Asks the development set's questions of an ingested eval store (a copy: the run writes its ledger
rows) through the retrieval service itself, once per vector-channel weight, and prints recall@2/5
of each mode beside BM25 over the same passages. The embedder is the one the LOCI_* settings of
the environment configure (LOCI_EMBED_MODEL, LOCI_LOCAL_EMBEDDING_DIM): the store must hold its
vectors (npm run loci -- reembed). Keywords and vectors are made as /v1/query makes them.

Options:
  --vector <w,w,...>   weights of the vector list (default 0,0.1,0.2,0.4,0.7,1); the others
                       stay at the offline embedder's (lexical 1, local 0.5, global 0.2)
  --lexical <w>        the weight of the BM25 list (default 1; 0 with naive measures the vectors alone)
  --vector-search <s>  always (default: the vector lists beside the words, as the weight curve needs)
                       or fallback (only when the words find nothing: the hashing embedder's policy)
  --modes <m,m>        default naive,mix
  --corpus <folder>    default ../shared/eval/hotpotqa-100
`;

interface Row {
  mode: RetrievalMode;
  vector: number;
  r2: number;
  r5: number;
  ms: number;
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      store: { type: 'string' },
      vector: { type: 'string' },
      lexical: { type: 'string' },
      'vector-search': { type: 'string' },
      modes: { type: 'string' },
      corpus: { type: 'string' },
    },
  });
  if (!values.store) {
    process.stderr.write(FIT_USAGE);
    return 2;
  }
  const weights = (values.vector ?? '0,0.1,0.2,0.4,0.7,1').split(',').map(Number);
  const lexical = Number(values.lexical ?? 1);
  const vectorSearch = values['vector-search'] ?? 'always';
  if (vectorSearch !== 'always' && vectorSearch !== 'fallback') {
    process.stderr.write(`--vector-search is always or fallback, got ${vectorSearch}\n`);
    return 2;
  }
  const modes = (values.modes ?? 'naive,mix').split(',') as RetrievalMode[];
  const set = loadEvalSet(values.corpus ?? defaultCorpusFolder(findRepoRoot()));
  const bm25 = scoreBaseline(new Bm25Ranker(set.passages, ENGLISH_ANALYZER), set.questions, [2, 5]);

  const tuning = Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('LOCI_')));
  const settings = loadSettings({ ...tuning, LOG_LEVEL: 'warn', LOCI_DATA_DIR: values.store, LOCI_RUN_WORKER: 'false' });
  const app: INestApplication = await createApp(settings);
  await app.init();
  try {
    const database = app.get<Database>(DATABASE);
    const [graph] = await queryRows<{ tenant_id: string; graph_id: number }>(
      database.db,
      sql`SELECT tenant_id, graph_id FROM chunks GROUP BY 1, 2 ORDER BY count(*) DESC LIMIT 1`,
    );
    const scope = { tenantId: graph.tenant_id, graphId: Number(graph.graph_id) };
    const stages = app.get(StageRunner);
    const gateway = app.get(ModelGateway);
    const retrieval = app.get(RetrievalService);

    // Keywords and vectors once per question; then one retrieval per mode and weight.
    const inputs = [];
    for (const [i, question] of set.questions.entries()) {
      const ctx = new CallContext(scope.tenantId, `fit:${i}`, 'query', undefined, undefined, false);
      const keywords = await stages.keywords(ctx, question.question);
      const texts = [question.question, keywords.low_level.join(', '), keywords.high_level.join(', ')];
      const { vectors, choice } = await gateway.embed(ctx, texts);
      inputs.push({ question, keywords, vectors, embeddingModel: choice.spec });
    }
    process.stderr.write(`embedder ${inputs[0]?.embeddingModel}; ${inputs.length} questions\n`);

    const rows: Row[] = [];
    for (const mode of modes) {
      for (const vector of weights) {
        const channelWeights: ChannelWeights = { ...HASHING_EMBEDDER_WEIGHTS, lexical, vector, vectorSearch };
        const r2: number[] = [];
        const r5: number[] = [];
        const ms: number[] = [];
        for (const { question, keywords, vectors, embeddingModel } of inputs) {
          const t0 = performance.now();
          const context = await retrieval.retrieve({
            ...scope,
            mode,
            questionText: question.question,
            highLevelKeywords: keywords.high_level,
            questionVector: vectors[0],
            lowLevelVector: keywords.low_level.length > 0 ? vectors[1] : undefined,
            highLevelVector: keywords.high_level.length > 0 ? vectors[2] : undefined,
            embeddingModel,
            weights: channelWeights,
          });
          ms.push(performance.now() - t0);
          const titles = context.chunks.map((chunk) => chunk.documentName);
          r2.push(recallAt(titles, question.supporting_titles, 2));
          r5.push(recallAt(titles, question.supporting_titles, 5));
        }
        ms.sort((a, b) => a - b);
        rows.push({ mode, vector, r2: round3(mean(r2)), r5: round3(mean(r5)), ms: Math.round(ms[Math.floor(ms.length / 2)] * 10) / 10 });
        const last = rows[rows.length - 1];
        process.stderr.write(`${mode} vector=${vector}: R@2 ${last.r2} R@5 ${last.r5} p50 ${last.ms} ms\n`);
      }
    }
    process.stdout.write(`| mode | lexical weight | vector weight | R@2 | R@5 | p50 ms |\n|---|---|---|---|---|---|\n`);
    for (const row of rows) process.stdout.write(`| ${row.mode} | ${lexical} | ${row.vector} | ${row.r2.toFixed(3)} | ${row.r5.toFixed(3)} | ${row.ms} |\n`);
    process.stdout.write(`| bm25 | – | – | ${round3(bm25.recall['2']).toFixed(3)} | ${round3(bm25.recall['5']).toFixed(3)} | – |\n`);
    return 0;
  } finally {
    await app.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
