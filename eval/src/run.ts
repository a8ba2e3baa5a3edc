import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { choiceList, integer, integerList, parse, UsageError } from '../../bench/args';
import { RETRIEVAL_MODES, RetrievalMode } from '../../libs/retrieval/src/retrieval.types';
import { byTypeTable, ConversationsReport, DEFAULT_SEED, runConversations } from './conversations';
import { defaultCorpusFolder } from './corpus';
import { runHotpotqa } from './hotpotqa';
import { BundleReport, bundleSummary, bundleTable, runHotpotqaBundles } from './hotpotqa-bundles';
import { GbReport, gbSummary, gbTable, runHotpotqaGb } from './hotpotqa-gb';
import { EvalReport, resultsTable, runSummary, writeEvalReport } from './report';
import { StoreKind } from './store-cache';

const MODES_IN_ORDER: RetrievalMode[] = ['naive', 'mix', 'local', 'global', 'hybrid'];

export const EVAL_USAGE = `Usage: npm run eval -- hotpotqa|conversations [options]

Retrieval quality on the HotpotQA-100 development set (../shared/eval/hotpotqa-100): each passage
ingested as one document named by its title through the real pipeline (local offline provider),
every question asked through POST /v1/query in context mode as a dashboard user, recall of the
gold passages among the first k chunks per mode, beside BM25 over the same passages.
conversations: the generated conversational set instead (eval/src/conversations: pairs of friends,
24 dated sessions each, states that change, small talk), each session one document with its date,
recall of the gold sessions per mode and per question type beside BM25 over the sessions
(options --seed, --pairs; cache in eval/.cache/conversations unless --cache-dir).
The ingested store is cached in eval/.cache/ and reused while the passages, the ingestion code
(libs/ingest, libs/llm), the migrations and the LOCI_* settings are unchanged.

Options:
  --surface <name>      v1 (default: POST /v1/query, the options below) or gb: the passages remembered --docs-of
                        (default 8) to a text through POST /v1/gb/remember as one end user's memory, every
                        question asked through POST /v1/gb/query; recall of the gold passages among the
                        passages given to the answerer (at --top-k, default 3,8: the contract's 3 with text
                        and 5 more with summary), in the response's evidence, and through its edges' texts,
                        beside BM25 over the same chunks and passages; latency and answer containment
                        (cache in eval/.cache/gb-of-<n> unless --cache-dir)
  --modes <list>        of ${MODES_IN_ORDER.join(',')} (default all, in that order)
  --top-k <list>        the k of recall@k (default 2,5,10)
  --limit <n>           the first n questions only, their gold passages and --distractors others
  --distractors <n>     with --limit: other passages ingested, the first in corpus order (default 3 per question)
  --store <kind>        pglite (default: the embedded store) or postgres (a database per cache key on DATABASE_URL's server)
  --reuse               take the newest finished store of the same passages even if the ingestion code changed
                        (new migrations are applied at boot); for measuring retrieval changes quickly
  --fresh               ingest again even if a finished store exists
  --no-answers          skip the dashboard answers (answer containment)
  --docs-of <n>         n passages to a document (a fixed seeded order; blank lines between them), so that
                        chunking decides what a unit is: recall of the passages the returned chunks hold, at k
                        chunks and at a context budget in tokens, beside BM25 over the same chunks and over
                        the passages (no answers; cache in eval/.cache/docs-of-<n> unless --cache-dir)
  --budgets <list>      context budgets in tokens: each question is also asked with max_total_tokens at each
                        (recall over the bounded context, beside BM25's best passages within the same tokens;
                        default 1000,2000; with --docs-of: 500,1000,2000,4000)
  --seed <n>            conversations: the generator's seed (default ${DEFAULT_SEED})
  --pairs <n>           conversations: pairs of friends, 24 sessions each (default 4)
  --corpus <dir>        the development set folder (default ../shared/eval/hotpotqa-100)
  --cache-dir <dir>     stores (default eval/.cache)
  --out <dir>           results folder (default eval/results)
  -h, --help            this text
`;

const OPTIONS = {
  surface: { type: 'string' },
  modes: { type: 'string' },
  'top-k': { type: 'string' },
  limit: { type: 'string' },
  distractors: { type: 'string' },
  store: { type: 'string' },
  reuse: { type: 'boolean' },
  fresh: { type: 'boolean' },
  'no-answers': { type: 'boolean' },
  'docs-of': { type: 'string' },
  budgets: { type: 'string' },
  corpus: { type: 'string' },
  seed: { type: 'string' },
  pairs: { type: 'string' },
  'cache-dir': { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The repository's root: the nearest folder up from here with Loci's package.json (from eval/src or dist/eval/src). */
export function findRepoRoot(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'loci') return dir;
    if (dirname(dir) === dir) throw new Error(`no Loci package.json above ${from}`);
  }
}

export async function main(argv: string[], out: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<{ code: number; report?: EvalReport | ConversationsReport; bundles?: BundleReport; gb?: GbReport; path?: string }> {
  let values: ReturnType<typeof parse<typeof OPTIONS>>['values'];
  let which: string;
  try {
    const parsed = parse(argv, OPTIONS);
    values = parsed.values;
    which = parsed.positionals[0];
    if (values.help) {
      out(EVAL_USAGE);
      return { code: 0 };
    }
    if (parsed.positionals.length !== 1 || !['hotpotqa', 'conversations'].includes(parsed.positionals[0])) throw new UsageError('name the eval: hotpotqa or conversations');
    if (parsed.positionals[0] === 'conversations' && (values.surface === 'gb' || values['docs-of'] !== undefined)) throw new UsageError('conversations: --surface v1 only, no --docs-of');
    if (values.surface !== undefined && !['v1', 'gb'].includes(values.surface)) throw new UsageError(`--surface: v1 or gb, not ${values.surface}`);
    if (values.store !== undefined && !['pglite', 'postgres'].includes(values.store)) throw new UsageError(`--store: pglite or postgres, not ${values.store}`);
    if (values.store === 'postgres' && !process.env.DATABASE_URL) throw new UsageError('--store postgres needs DATABASE_URL (the server the eval database is made on)');
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`eval: ${error.message}\n\n${EVAL_USAGE}`);
      return { code: 2 };
    }
    throw error;
  }
  const repoRoot = findRepoRoot();
  const limit = values.limit === undefined ? undefined : integer('limit', values.limit, 0, 1, 100_000);
  const requested = choiceList<RetrievalMode>('modes', values.modes, RETRIEVAL_MODES, MODES_IN_ORDER);
  if (which === 'conversations') return mainConversations(values, repoRoot, limit, requested, out);
  if (values.surface === 'gb') return mainGb(values, repoRoot, limit, out);
  if (values['docs-of'] !== undefined) return mainBundles(values, repoRoot, limit, requested, out);
  const report = await runHotpotqa({
    repoRoot,
    corpusFolder: resolve(values.corpus ?? defaultCorpusFolder(repoRoot)),
    cacheDir: resolve(values['cache-dir'] ?? join(repoRoot, 'eval', '.cache')),
    store: (values.store ?? 'pglite') as StoreKind,
    databaseUrl: process.env.DATABASE_URL,
    limit,
    distractors: integer('distractors', values.distractors, (limit ?? 0) * 3, 0, 100_000),
    modes: requested,
    topK: integerList('top-k', values['top-k'], [2, 5, 10], 1, 1000),
    budgets: integerList('budgets', values.budgets, [1000, 2000], 100, 1_000_000),
    answers: !values['no-answers'],
    reuse: values.reuse ?? false,
    fresh: values.fresh ?? false,
    log: (line) => out(`[${new Date().toISOString().slice(11, 19)}] ${line}`),
  });
  for (const line of resultsTable(report)) out(line);
  out(runSummary(report));
  const path = writeEvalReport(resolve(values.out ?? join(repoRoot, 'eval', 'results')), report);
  out(`results: ${path}`);
  return { code: 0, report, path };
}

/** `conversations`: the generated conversational set (conversations.ts), its table and a table per question type. */
async function mainConversations(
  values: ReturnType<typeof parse<typeof OPTIONS>>['values'],
  repoRoot: string,
  limit: number | undefined,
  modes: RetrievalMode[],
  out: (line: string) => void,
): Promise<{ code: number; report: ConversationsReport; path: string }> {
  const report = await runConversations({
    repoRoot,
    seed: integer('seed', values.seed, DEFAULT_SEED, 0, 2 ** 32 - 1),
    pairs: integer('pairs', values.pairs, 4, 1, 12),
    cacheDir: resolve(values['cache-dir'] ?? join(repoRoot, 'eval', '.cache', 'conversations')),
    store: (values.store ?? 'pglite') as StoreKind,
    databaseUrl: process.env.DATABASE_URL,
    limit,
    distractors: integer('distractors', values.distractors, (limit ?? 0) * 3, 0, 100_000),
    modes,
    topK: integerList('top-k', values['top-k'], [2, 5, 10], 1, 1000),
    budgets: integerList('budgets', values.budgets, [1000, 2000], 100, 1_000_000),
    answers: !values['no-answers'],
    reuse: values.reuse ?? false,
    fresh: values.fresh ?? false,
    log: (line) => out(`[${new Date().toISOString().slice(11, 19)}] ${line}`),
  });
  for (const line of resultsTable(report)) out(line);
  out('');
  for (const line of byTypeTable(report)) out(line);
  out(runSummary(report));
  const path = writeEvalReport(resolve(values.out ?? join(repoRoot, 'eval', 'results')), report);
  out(`results: ${path}`);
  return { code: 0, report, path };
}

/** `--docs-of N`: the multi-passage variant (hotpotqa-bundles.ts), its own table and results file. */
async function mainBundles(
  values: ReturnType<typeof parse<typeof OPTIONS>>['values'],
  repoRoot: string,
  limit: number | undefined,
  modes: RetrievalMode[],
  out: (line: string) => void,
): Promise<{ code: number; bundles: BundleReport; path: string }> {
  const docsOf = integer('docs-of', values['docs-of'], 8, 1, 1000);
  const report = await runHotpotqaBundles({
    repoRoot,
    corpusFolder: resolve(values.corpus ?? defaultCorpusFolder(repoRoot)),
    cacheDir: resolve(values['cache-dir'] ?? join(repoRoot, 'eval', '.cache', `docs-of-${docsOf}`)),
    store: (values.store ?? 'pglite') as StoreKind,
    databaseUrl: process.env.DATABASE_URL,
    limit,
    distractors: integer('distractors', values.distractors, (limit ?? 0) * 3, 0, 100_000),
    modes,
    topK: integerList('top-k', values['top-k'], [2, 5, 10], 1, 1000),
    budgets: integerList('budgets', values.budgets, [500, 1000, 2000, 4000], 1, 1_000_000),
    docsOf,
    reuse: values.reuse ?? false,
    fresh: values.fresh ?? false,
    log: (line) => out(`[${new Date().toISOString().slice(11, 19)}] ${line}`),
  });
  for (const line of bundleTable(report)) out(line);
  out(bundleSummary(report));
  const dir = resolve(values.out ?? join(repoRoot, 'eval', 'results'));
  mkdirSync(dir, { recursive: true });
  const stamp = report.created_at.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const path = join(dir, `${stamp}-hotpotqa-docs-of-${docsOf}-chunk-${report.chunking.chunk_tokens}${limit === undefined ? '' : `-limit${limit}`}.json`);
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  out(`results: ${path}`);
  return { code: 0, bundles: report, path };
}

/** `--surface gb`: gb remember and gb query (hotpotqa-gb.ts), its own table and results file. */
async function mainGb(
  values: ReturnType<typeof parse<typeof OPTIONS>>['values'],
  repoRoot: string,
  limit: number | undefined,
  out: (line: string) => void,
): Promise<{ code: number; gb: GbReport; path: string }> {
  const docsOf = integer('docs-of', values['docs-of'], 8, 1, 1000);
  const report = await runHotpotqaGb({
    repoRoot,
    corpusFolder: resolve(values.corpus ?? defaultCorpusFolder(repoRoot)),
    cacheDir: resolve(values['cache-dir'] ?? join(repoRoot, 'eval', '.cache', `gb-of-${docsOf}`)),
    store: (values.store ?? 'pglite') as StoreKind,
    databaseUrl: process.env.DATABASE_URL,
    limit,
    distractors: integer('distractors', values.distractors, (limit ?? 0) * 3, 0, 100_000),
    topK: integerList('top-k', values['top-k'], [3, 8], 1, 1000),
    docsOf,
    reuse: values.reuse ?? false,
    fresh: values.fresh ?? false,
    log: (line) => out(`[${new Date().toISOString().slice(11, 19)}] ${line}`),
  });
  for (const line of gbTable(report)) out(line);
  out(gbSummary(report));
  const dir = resolve(values.out ?? join(repoRoot, 'eval', 'results'));
  mkdirSync(dir, { recursive: true });
  const stamp = report.created_at.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const path = join(dir, `${stamp}-hotpotqa-gb-of-${docsOf}${limit === undefined ? '' : `-limit${limit}`}.json`);
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  out(`results: ${path}`);
  return { code: 0, gb: report, path };
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    ({ code }) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`eval: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
