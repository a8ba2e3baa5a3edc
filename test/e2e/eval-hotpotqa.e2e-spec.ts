import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bm25Ranker, ENGLISH_ANALYZER } from '../../eval/src/bm25';
import { loadEvalSet, sampleEvalSet } from '../../eval/src/corpus';
import { allGoldAt, containsAnswer, normalizeAnswer, recallAt } from '../../eval/src/metrics';
import type { EvalReport } from '../../eval/src/report';
import { main } from '../../eval/src/run';
import { describeWithEvalSet, evalCorpusFolder as corpusFolder, itWithEvalSet } from '../support/eval-set';

/**
 * CI smoke of the retrieval eval (issue 14): `npm run eval -- hotpotqa --limit 10` on the
 * embedded store in a temporary folder. Asserts the report's shape and the harness's own
 * behaviour (the sample, the cache, the modes searched), never the quality numbers.
 */
const MODES = ['naive', 'mix', 'local', 'global', 'hybrid'];

describe('eval definitions (no store)', () => {
  it('counts each gold title once among the first k chunks, repeated chunks included in k', () => {
    const ranking = ['A', 'A', 'B', 'C'];
    expect(recallAt(ranking, ['A', 'B'], 2)).toBe(0.5);
    expect(recallAt(ranking, ['A', 'B'], 3)).toBe(1);
    expect(recallAt(ranking, ['A', 'D'], Infinity)).toBe(0.5);
    expect(recallAt([], ['A'], 5)).toBe(0);
    expect(allGoldAt(['A', 'C', 'B'], ['A', 'B'], 2)).toBe(0);
    expect(allGoldAt(['A', 'C', 'B'], ['A', 'B'], 3)).toBe(1);
  });

  it('finds the gold answer as whole words after SQuAD normalisation', () => {
    expect(normalizeAnswer('The Café, "Nord"!')).toBe('cafe nord');
    expect(containsAnswer('Lilu is a spirit of the air.', 'a spirit')).toBe(true);
    expect(containsAnswer('It was in 1990s.', '1990')).toBe(false);
    expect(containsAnswer('anything', '')).toBe(false);
  });

  itWithEvalSet('samples the first questions, their gold passages and a fixed number of distractors', () => {
    const set = loadEvalSet(corpusFolder);
    const sample = sampleEvalSet(set, 3, 4);
    expect(sample.questions.map((q) => q.id)).toEqual(set.questions.slice(0, 3).map((q) => q.id));
    const gold = new Set(sample.questions.flatMap((q) => q.supporting_titles));
    const titles = sample.passages.map((p) => p.title);
    expect(titles.filter((t) => gold.has(t)).sort()).toEqual([...gold].sort());
    expect(titles.filter((t) => !gold.has(t))).toHaveLength(4);
    expect(sampleEvalSet(set, 3, 4)).toEqual(sample);
  });

  it('ranks by BM25 over English stems: a stemmed match outranks a passage without the word', () => {
    const ranker = new Bm25Ranker(
      [
        { title: 'Cats', text: 'Cats sleep most of the day.' },
        { title: 'Runner', text: 'She runs marathons every spring.' },
        { title: 'Dogs', text: 'Dogs bark at the postman.' },
      ],
      ENGLISH_ANALYZER,
    );
    expect(ranker.rank('Who was running the marathon?')[0]).toBe('Runner');
    expect(ranker.rank('the of and')).toEqual([]);
  });
});

describeWithEvalSet('npm run eval -- hotpotqa --limit 10 (embedded store)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loci-eval-'));
  const args = ['hotpotqa', '--limit', '10', '--distractors', '10', '--store', 'pglite', '--cache-dir', join(dir, 'cache'), '--out', join(dir, 'out')];
  const quiet = () => undefined;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  let report: EvalReport;

  it('ingests the sample through the API, asks every question in every mode and writes the report', async () => {
    const run = await main(args, quiet);
    expect(run.code).toBe(0);
    report = run.report!;
    expect(JSON.parse(readFileSync(run.path!, 'utf8'))).toEqual(JSON.parse(JSON.stringify(report)));

    expect(report.corpus).toMatchObject({ questions: 10, passages: 30 });
    expect(report.corpus.license).toMatch(/CC BY-SA 4\.0/);
    expect(report.store).toMatchObject({ kind: 'pglite', reused: false, stale: false });
    // The offline default, recorded so that a results file says which embedder it measured.
    expect(report.embedder).toBe('local:local-hash-v1');
    expect(report.store.ingestion).toMatchObject({ documents: 30, processed: 30, failed: 0 });
    expect(report.store.ingestion.chunks).toBeGreaterThanOrEqual(30);

    const unit = (x: number) => expect(x >= 0 && x <= 1).toBe(true);
    expect(report.baselines.map((b) => b.name)).toEqual(['bm25', 'bm25-nostem']);
    for (const b of report.baselines) for (const k of ['2', '5', '10']) unit(b.recall[k]);

    expect(report.modes.map((m) => m.mode)).toEqual(MODES);
    for (const m of report.modes) {
      expect(m.questions).toBe(10);
      // A dashboard question is searched in the mode it names (an API-key one would fall back to naive).
      expect(m.mode_used).toEqual({ [m.mode]: 10 });
      for (const k of ['2', '5', '10', 'all']) {
        unit(m.recall[k]);
        unit(m.all_gold[k]);
        expect(m.all_gold[k]).toBeLessThanOrEqual(m.recall[k]);
      }
      expect(m.recall['2']).toBeLessThanOrEqual(m.recall['5']);
      unit(m.bm25_same_count);
      for (const value of Object.values(m.ratio_to_bm25)) expect(Number.isFinite(value) || Number.isNaN(value)).toBe(true);
      for (const value of [m.chunks.mean, m.tokens.mean, m.latency_ms.p50, m.latency_ms.p95]) expect(Number.isFinite(value)).toBe(true);
      unit(m.answers!.containment);
      expect(m.answers!.asked).toBe(10);
    }

    const ingested = new Set(loadEvalSet(corpusFolder).passages.map((p) => p.title));
    expect(report.questions).toHaveLength(50);
    for (const q of report.questions) {
      expect(q.titles).toHaveLength(q.chunks);
      for (const title of q.titles) expect(ingested.has(title)).toBe(true);
    }
  }, 240_000);

  it('reuses the ingested store of the same passages with --reuse', async () => {
    expect(report).toBeDefined();
    // --reuse, not the exact key: others may change ingestion code in this checkout meanwhile.
    const run = await main([...args, '--reuse', '--modes', 'naive', '--no-answers'], quiet);
    expect(run.report!.store).toMatchObject({ reused: true, key: report.store.key, ingestion: report.store.ingestion });
    expect(run.report!.modes.map((m) => m.mode)).toEqual(['naive']);
    expect(run.report!.modes[0].answers).toBeNull();
    // The same store and questions: naive ranks the same chunks again.
    expect(run.report!.questions.map((q) => q.titles)).toEqual(report.questions.filter((q) => q.mode === 'naive').map((q) => q.titles));
    expect(existsSync(run.path!)).toBe(true);
  }, 120_000);
});
