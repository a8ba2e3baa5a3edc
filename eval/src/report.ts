import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MachineInfo } from '../../bench/report';
import type { AskedQuestion } from './ask-questions';
import type { BaselineResult, ModeResult } from './scoring';
import type { IngestionSummary, StoreKind } from './store-cache';

export interface EvalReport {
  eval: 'hotpotqa' | 'conversations';
  created_at: string;
  corpus: { folder: string; passages: number; questions: number; sha256: string; license: string };
  options: { limit: number | null; distractors: number | null; modes: string[]; top_k: number[]; budgets?: number[]; answers: boolean };
  /** How questions were asked (see ask-questions.ts for why a dashboard session). */
  caller: 'dashboard-jwt';
  /** The embedder (`provider:model`) the store was ingested and searched with. */
  embedder: string;
  store: {
    kind: StoreKind;
    key: string;
    reused: boolean;
    /** Reused with --reuse although the ingestion code or settings changed since it was built. */
    stale: boolean;
    ingestion_fingerprint: string;
    ingestion: IngestionSummary;
  };
  machine: MachineInfo;
  /** The checkout measured: its commit, and the paths that differed from it (others' work in progress included). */
  source: { commit: string | null; uncommitted: string[] };
  baselines: BaselineResult[];
  modes: ModeResult[];
  /** Per question and mode: titles of the chunks returned, best first. */
  questions: AskedQuestion[];
  elapsed_s: number;
}

export const CORPUS_LICENSE =
  'HotpotQA (Yang et al., 2018), the 100-question training sample and its corpus as distributed by the HippoRAG repository; CC BY-SA 4.0.';

/** Writes `<dir>/<date>-<eval>[-limitN].json` (through a temporary file, so a reader never sees half of it). */
export function writeEvalReport(dir: string, report: EvalReport): string {
  mkdirSync(dir, { recursive: true });
  const stamp = report.created_at.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const suffix = report.options.limit === null ? '' : `-limit${report.options.limit}`;
  const path = join(dir, `${stamp}-${report.eval}${suffix}.json`);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(report, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
  return path;
}

const fixed = (x: number | undefined, digits = 3) => (x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits));

/** The results as a Markdown table: one row per mode, then the BM25 rows, measured in the same run. */
export function resultsTable(report: EvalReport): string[] {
  const ks = report.options.top_k.map(String);
  const budgets = (report.options.budgets ?? []).map(String);
  const header = [
    'ranker',
    ...ks.map((k) => `R@${k}`),
    'R@all',
    ...budgets.map((b) => `R@≤${b} tok`),
    ...ks.map((k) => `×BM25@${k}`),
    '×BM25@same',
    'chunks',
    'tokens',
    'p50 ms',
    'p95 ms',
    'answer ⊇ gold',
  ];
  const rows = report.modes.map((m) => [
    m.mode,
    ...ks.map((k) => fixed(m.recall[k])),
    fixed(m.recall.all),
    ...budgets.map((b) => fixed(m.budget_recall?.[b])),
    ...ks.map((k) => fixed(m.ratio_to_bm25[k], 2)),
    fixed(m.ratio_to_bm25.all, 2),
    fixed(m.chunks.mean, 1),
    fixed(m.tokens.mean, 0),
    fixed(m.latency_ms.p50, 0),
    fixed(m.latency_ms.p95, 0),
    m.answers ? fixed(m.answers.containment) : '–',
  ]);
  const reference = report.baselines[0];
  for (const b of report.baselines) {
    const ratios = ks.map((k) => fixed(b.recall[k] / reference.recall[k], 2));
    rows.push([b.name, ...ks.map((k) => fixed(b.recall[k])), '–', ...budgets.map((x) => fixed(b.budget_recall?.[x])), ...ratios, '–', '–', '–', '–', '–', '–']);
  }
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

/** One paragraph under the table: what was measured, on what, in how long. */
export function runSummary(report: EvalReport): string {
  const i = report.store.ingestion;
  return (
    `${report.corpus.questions} questions, ${report.corpus.passages} passages (${i.chunks} chunks; ${i.failed} failed) on ${report.store.kind}, embedder ${report.embedder}` +
    `${report.store.reused ? ' (reused store)' : ''}; ingestion ${i.elapsed_s} s (${i.passages_per_s} passages/s); ` +
    `${report.machine.cpus} CPUs, Node ${report.machine.node}; run ${report.elapsed_s} s. ` +
    `BM25 as ${report.baselines[0]?.description ?? '–'}, k1 ${report.baselines[0]?.k1}, b ${report.baselines[0]?.b}.`
  );
}
