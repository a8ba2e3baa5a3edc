import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../eval/src/run';
import { describeWithEvalSet } from '../support/eval-set';

/**
 * The gb surface of the eval (`npm run eval -- hotpotqa --surface gb`): a small run on the
 * embedded store, through gb remember and gb query. Shape only, never the quality numbers.
 */
describeWithEvalSet('npm run eval -- hotpotqa --surface gb --docs-of 4 --limit 3 (embedded store)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loci-eval-gb-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('remembers the sample as texts of 4 passages, asks every question and scores the passages beside BM25', async () => {
    const args = ['hotpotqa', '--surface', 'gb', '--docs-of', '4', '--limit', '3', '--distractors', '6'];
    const run = await main([...args, '--cache-dir', join(dir, 'cache'), '--out', join(dir, 'out')], () => undefined);
    expect(run.code).toBe(0);
    const report = run.gb!;
    expect(JSON.parse(readFileSync(run.path!, 'utf8'))).toEqual(JSON.parse(JSON.stringify(report)));

    expect(report.corpus).toMatchObject({ questions: 3, docs_of: 4, texts: Math.ceil(report.corpus.passages / 4) });
    expect(report.store.ingestion).toMatchObject({ documents: report.corpus.texts, failed: 0 });
    expect(report.chunking.chunks).toBeGreaterThan(0);
    expect(report.rankers.map((r) => r.ranker)).toEqual(['gb-context', 'gb-evidence', 'gb-provenance', 'bm25-chunks', 'bm25-passages']);
    for (const r of report.rankers) {
      for (const value of [...Object.values(r.recall), r.recall_all].filter(Number.isFinite)) expect(value >= 0 && value <= 1).toBe(true);
    }
    expect(Object.keys(report.rankers[0].recall)).toEqual(['3', '8']);
    // The contract's caps: 3 passages with text, 8 in all.
    for (const q of report.questions) {
      expect(q.context.length).toBeLessThanOrEqual(8);
      expect(q.context.filter((p) => p.with_text).length).toBeLessThanOrEqual(3);
    }
    expect(report.questions).toHaveLength(3);
    expect(report.unlocated).toBe(0);
    expect(report.latency_ms.p50).toBeGreaterThan(0);
  }, 300_000);
});
