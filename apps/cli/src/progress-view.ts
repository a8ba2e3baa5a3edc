import { MultiBar, Presets, SingleBar } from 'cli-progress';
import type { BulkUploadResult, FileProgress, Summary } from './bulk-uploader';
import type { SkippedFile } from './collect-files';

/** A stream the view writes to; `isTTY` decides between bars and plain lines. */
export type Output = NodeJS.WritableStream & { isTTY?: boolean };

export interface ProgressView {
  skipped(files: SkippedFile[]): void;
  update(state: FileProgress): void;
  stop(): void;
}

const NAME_WIDTH = 32;

/**
 * Bars on a terminal; plain lines otherwise, because CI logs and pipes have no cursor to move
 * and a redrawn bar would come out as thousands of lines there.
 */
export function createProgressView(out: Output, total: number): ProgressView {
  return out.isTTY ? new BarView(out, total) : new LineView(out, total);
}

/** One line for a finished file, the same in both views. */
export function describeFinished(state: FileProgress): string {
  const id = state.documentId ? ` (document ${state.documentId})` : '';
  const counts = state.counts ? `: ${state.counts.chunks} chunks, ${state.counts.entities} entities, ${state.counts.edges} edges` : '';
  switch (state.outcome) {
    case 'processed':
      return `${state.file.name} processed${id}${counts}`;
    case 'already_uploaded':
      return `${state.file.name} already uploaded${id}${counts}`;
    case 'deferred':
      return `${state.file.name} deferred${id}: ${state.error ?? 'the server will process it later'}`;
    case 'timed_out':
      return `${state.file.name} timed out${id}: ${state.error ?? ''}`;
    default:
      return `${state.file.name} FAILED${id}: ${state.error ?? 'unknown error'}`;
  }
}

class LineView implements ProgressView {
  private finished = 0;
  /** Last line printed per file, so a poll that changed nothing prints nothing. */
  private readonly last = new Map<string, string>();

  constructor(
    private readonly out: Output,
    private readonly total: number,
  ) {}

  skipped(files: SkippedFile[]): void {
    for (const file of files) this.out.write(`skipped ${file.path}: ${file.reason}\n`);
  }

  update(state: FileProgress): void {
    if (state.outcome) {
      this.finished++;
      this.out.write(`[${this.finished}/${this.total}] ${describeFinished(state)}\n`);
      this.last.delete(state.file.path);
      return;
    }
    const chunks = state.chunksTotal > 0 ? ` ${state.chunksDone}/${state.chunksTotal} chunks` : '';
    const line = `${state.file.name}: ${state.phase}${chunks}`;
    if (this.last.get(state.file.path) === line) return;
    this.last.set(state.file.path, line);
    this.out.write(`${line}\n`);
  }

  stop(): void {}
}

/**
 * A bar per document in flight (at most --concurrency of them) under an overall bar; a
 * finished document's bar is replaced by its result line, so a folder of thousands of files
 * never needs more rows than the terminal has.
 */
class BarView implements ProgressView {
  private readonly multibar: MultiBar;
  private readonly overall: SingleBar;
  private readonly bars = new Map<string, SingleBar>();
  private finished = 0;

  constructor(
    out: Output,
    private readonly total: number,
  ) {
    this.multibar = new MultiBar(
      {
        stream: out,
        format: '{name} |{bar}| {chunks} {status}',
        barsize: 24,
        hideCursor: true,
        clearOnComplete: false,
        autopadding: true,
      },
      Presets.shades_classic,
    );
    this.overall = this.multibar.create(Math.max(total, 1), 0, { name: fit('all files'), chunks: `0/${total} files`, status: '' });
  }

  skipped(files: SkippedFile[]): void {
    for (const file of files) this.multibar.log(`skipped ${file.path}: ${file.reason}\n`);
  }

  update(state: FileProgress): void {
    const key = state.file.path;
    if (state.outcome) {
      const bar = this.bars.get(key);
      if (bar) this.multibar.remove(bar);
      this.bars.delete(key);
      this.multibar.log(`${describeFinished(state)}\n`);
      this.finished++;
      this.overall.update(this.finished, { chunks: `${this.finished}/${this.total} files` });
      return;
    }
    // Until the server has chunked the document its total is 0; a bar of 1 avoids a 0/0 bar.
    const total = Math.max(state.chunksTotal, 1);
    const payload = { name: fit(state.file.name), chunks: `${state.chunksDone}/${state.chunksTotal || '?'} chunks`, status: state.phase };
    const bar = this.bars.get(key);
    if (!bar) this.bars.set(key, this.multibar.create(total, state.chunksDone, payload));
    else {
      bar.setTotal(total);
      bar.update(state.chunksDone, payload);
    }
  }

  stop(): void {
    // Result lines logged since the last redraw are only written by a redraw; stop() alone drops them.
    this.multibar.update();
    this.multibar.stop();
  }
}

/** Fixed-width names keep the bars aligned; long paths keep their end, the part that differs. */
function fit(name: string): string {
  return name.length > NAME_WIDTH ? `…${name.slice(-(NAME_WIDTH - 1))}` : name.padEnd(NAME_WIDTH);
}

/** The closing report: what happened to every file, with the server's message for each that did not make it. */
export function formatSummary(result: BulkUploadResult, summary: Summary): string {
  const { counts, totals } = summary;
  const lines = ['', 'Summary'];
  const row = (label: string, n: number, detail = '') => lines.push(`  ${label.padEnd(17)}${String(n).padStart(5)}${detail}`);
  const problems = (outcome: string) => {
    for (const f of result.files) if (f.outcome === outcome) lines.push(`      ${f.file.name}: ${f.error ?? 'no reason given'}`);
  };
  row('processed', counts.processed);
  row('already uploaded', counts.already_uploaded);
  row('failed', counts.failed);
  problems('failed');
  row('deferred', counts.deferred);
  problems('deferred');
  row('timed out', counts.timed_out);
  problems('timed_out');
  row('skipped', counts.skipped);
  for (const s of result.skipped) lines.push(`      ${s.path}: ${s.reason}`);
  if (counts.not_finished > 0) row('not finished', counts.not_finished);
  lines.push(`  ${'totals'.padEnd(17)}${totals.chunks} chunks, ${totals.entities} entities, ${totals.edges} edges (of the ${counts.processed} processed in this run)`);
  if (result.aborted) lines.push('', `Stopped: ${result.aborted.message}`);
  return `${lines.join('\n')}\n`;
}
