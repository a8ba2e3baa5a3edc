import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { choiceList, integerList, parse, UsageError } from './args';
import { RETRIEVAL_MODES, RetrievalMode } from '../libs/retrieval/src/retrieval.types';

/**
 * `npm run bench:chart`: query-context p50 and p99 against graph size, from the results files
 * (the newest file per seeded size that has query-context cells of the mode), as a hand-written
 * SVG: log-scaled axes, one solid (p50) and one dashed (p99) line per concurrency.
 */

export const CHART_USAGE = `Usage: npm run bench:chart [-- options]

Reads bench/results/*.json (query-context and query runs) and writes an SVG of query-context
p50/p99 latency against the seeded graph size, one line pair per concurrency.

Options:
  --mode <mode>        retrieval mode to plot (default mix): ${RETRIEVAL_MODES.join(', ')}
  --concurrency <list> concurrencies to plot (default 1,16)
  --results <dir>      results folder (default bench/results)
  --out <file>         the SVG (default docs/bench/query-scaling.svg)
  -h, --help           this text
`;

interface Cell {
  scenario: string;
  mode: string;
  concurrency: number;
  latency_ms: { p50: number; p99: number };
  throughput_rps: number;
}

interface ResultFile {
  scenario: string;
  created_at: string;
  dataset?: { edges: number; large_tenant: { edges: number } };
  machine?: { cpus: number; cpu_model: string; load_average: number[]; load_average_after?: number[] };
  cells?: Cell[];
}

export interface ChartPoint {
  /** Seeded edges (all tenants), the x axis. */
  edges: number;
  largeTenantEdges: number;
  concurrency: number;
  p50: number;
  p99: number;
  file: string;
  createdAt: string;
  load: number[];
}

/** The newest query-context cells of `mode` per seeded size and concurrency. */
export function chartPoints(resultsDir: string, mode: RetrievalMode, concurrencies: number[]): ChartPoint[] {
  if (!existsSync(resultsDir)) return [];
  const files = readdirSync(resultsDir)
    .filter((f) => /^(query|query-context)-\d+-.*\.json$/.test(f))
    .map((f) => ({ f, report: JSON.parse(readFileSync(join(resultsDir, f), 'utf8')) as ResultFile }))
    .filter(({ report }) => report.dataset && Array.isArray(report.cells))
    .sort((a, b) => b.report.created_at.localeCompare(a.report.created_at));
  const points = new Map<string, ChartPoint>();
  for (const { f, report } of files) {
    for (const cell of report.cells!) {
      if (cell.scenario !== 'query-context' || cell.mode !== mode || !concurrencies.includes(cell.concurrency)) continue;
      const key = `${report.dataset!.edges}:${cell.concurrency}`;
      if (points.has(key)) continue; // a newer file already gave this point
      points.set(key, {
        edges: report.dataset!.edges,
        largeTenantEdges: report.dataset!.large_tenant.edges,
        concurrency: cell.concurrency,
        p50: cell.latency_ms.p50,
        p99: cell.latency_ms.p99,
        file: f,
        createdAt: report.created_at,
        load: [...(report.machine?.load_average ?? []), ...(report.machine?.load_average_after ?? [])],
      });
    }
  }
  return [...points.values()].sort((a, b) => a.concurrency - b.concurrency || a.edges - b.edges);
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e'];
const W = 780;
const H = 460;
const M = { left: 70, right: 210, top: 56, bottom: 64 };

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const sizeLabel = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n));

/** A log axis from the 1-2-5 step at or below `min` to the one at or above `max`, with those steps as ticks. */
function logTicks(min: number, max: number): { lo: number; hi: number; ticks: number[] } {
  const steps: number[] = [];
  for (let decade = Math.pow(10, Math.floor(Math.log10(min))); decade <= max * 10; decade *= 10) steps.push(decade, decade * 2, decade * 5);
  const lo = Math.max(...steps.filter((t) => t <= min));
  const hi = Math.min(...steps.filter((t) => t >= max));
  return { lo, hi, ticks: steps.filter((t) => t >= lo && t <= hi) };
}

export function renderChart(points: ChartPoint[], mode: string): string {
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${M.left}" y="24" font-size="16" font-weight="bold">query-context (${escape(mode)}): latency against graph size</text>`,
  ];
  if (points.length === 0) {
    out.push(`<text x="${M.left}" y="${M.top + 40}">No query-context results of mode ${escape(mode)} in bench/results yet.</text>`, '</svg>');
    return `${out.join('\n')}\n`;
  }
  const sizes = [10_000, 100_000, 1_000_000, ...points.map((p) => p.edges)];
  const xAxis = { lo: Math.min(...sizes), hi: Math.max(...sizes) };
  const y = logTicks(Math.min(...points.map((p) => p.p50)), Math.max(...points.map((p) => p.p99)));
  const xOf = (edges: number) => M.left + (plotW * (Math.log10(edges) - Math.log10(xAxis.lo))) / Math.max(1e-9, Math.log10(xAxis.hi) - Math.log10(xAxis.lo));
  const yOf = (ms: number) => M.top + plotH - (plotH * (Math.log10(ms) - Math.log10(y.lo))) / (Math.log10(y.hi) - Math.log10(y.lo));
  const measured = new Set(points.map((p) => p.edges));
  out.push(`<text x="${M.left}" y="42" fill="#555">p50 solid, p99 dashed; log scales; the newest run per size (${points.length} points)</text>`);
  // grid and axes
  for (const t of y.ticks) {
    out.push(`<line x1="${M.left}" x2="${M.left + plotW}" y1="${yOf(t).toFixed(1)}" y2="${yOf(t).toFixed(1)}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${M.left - 8}" y="${(yOf(t) + 4).toFixed(1)}" text-anchor="end">${t}</text>`);
  }
  for (const size of [...new Set(sizes)].sort((a, b) => a - b)) {
    const x = xOf(size).toFixed(1);
    out.push(`<line x1="${x}" x2="${x}" y1="${M.top}" y2="${M.top + plotH}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${x}" y="${M.top + plotH + 18}" text-anchor="middle">${sizeLabel(size)}${measured.has(size) ? '' : ' (not run)'}</text>`);
  }
  out.push(`<rect x="${M.left}" y="${M.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`);
  out.push(`<text x="${M.left + plotW / 2}" y="${H - 18}" text-anchor="middle">edges seeded (all tenants; the large tenant holds 80%)</text>`);
  out.push(`<text transform="translate(18 ${M.top + plotH / 2}) rotate(-90)" text-anchor="middle">latency (ms)</text>`);
  // series
  const concurrencies = [...new Set(points.map((p) => p.concurrency))];
  concurrencies.forEach((c, i) => {
    const color = COLORS[i % COLORS.length];
    const series = points.filter((p) => p.concurrency === c);
    for (const [key, dash] of [['p50', ''], ['p99', ' stroke-dasharray="6 4"']] as const) {
      const path = series.map((p, j) => `${j === 0 ? 'M' : 'L'}${xOf(p.edges).toFixed(1)} ${yOf(p[key]).toFixed(1)}`).join(' ');
      out.push(`<path d="${path}" fill="none" stroke="${color}" stroke-width="2"${dash}/>`);
      for (const p of series) {
        const px = xOf(p.edges).toFixed(1);
        const py = yOf(p[key]);
        out.push(`<circle cx="${px}" cy="${py.toFixed(1)}" r="3.5" fill="${color}"/>`);
        out.push(`<text x="${(xOf(p.edges) + 6).toFixed(1)}" y="${(py - 6).toFixed(1)}" fill="${color}" font-size="11">${p[key]}</text>`);
      }
    }
    const ly = M.top + 16 + i * 40;
    const lx = M.left + plotW + 16;
    out.push(`<line x1="${lx}" x2="${lx + 28}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"/>`);
    out.push(`<text x="${lx + 34}" y="${ly + 4}">concurrency ${c}, p50</text>`);
    out.push(`<line x1="${lx}" x2="${lx + 28}" y1="${ly + 16}" y2="${ly + 16}" stroke="${color}" stroke-width="2" stroke-dasharray="6 4"/>`);
    out.push(`<text x="${lx + 34}" y="${ly + 20}">concurrency ${c}, p99</text>`);
  });
  const notes = [...new Map(points.map((p) => [p.edges, p])).values()].sort((a, b) => a.edges - b.edges);
  notes.forEach((p, i) => {
    const load = p.load.length > 0 ? `, load ≤ ${Math.max(...p.load).toFixed(1)}` : '';
    out.push(`<text x="${M.left + plotW + 16}" y="${M.top + 16 + concurrencies.length * 40 + 10 + i * 16}" fill="#555" font-size="11">${sizeLabel(p.edges)}: ${p.createdAt.slice(0, 10)}${load}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

function main(argv: string[]): number {
  let values;
  try {
    ({ values } = parse(argv, {
      mode: { type: 'string' },
      concurrency: { type: 'string' },
      results: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    } as const));
    if (values.help) {
      process.stdout.write(CHART_USAGE);
      return 0;
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench:chart: ${error.message}\n\n${CHART_USAGE}`);
    return 2;
  }
  const [mode] = choiceList<RetrievalMode>('mode', values.mode, RETRIEVAL_MODES, ['mix']);
  const concurrencies = integerList('concurrency', values.concurrency, [1, 16], 1, 1024);
  const points = chartPoints(values.results ?? join(process.cwd(), 'bench', 'results'), mode, concurrencies);
  const path = values.out ?? join(process.cwd(), 'docs', 'bench', 'query-scaling.svg');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, renderChart(points, mode));
  for (const p of points) process.stdout.write(`${sizeLabel(p.edges)} c=${p.concurrency}: p50 ${p.p50} ms, p99 ${p.p99} ms (${p.file})\n`);
  process.stdout.write(`chart: ${path}\n`);
  return 0;
}

if (require.main === module) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`bench:chart: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
