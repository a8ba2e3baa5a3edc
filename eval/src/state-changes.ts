/**
 * `npm run eval:state-changes`: how often offline extraction and the store's supersession end
 * an earlier fact when a later text changes it, and how often they end one they should not
 * (issue 36.4; fixture libs/llm/src/local/fixtures/state-changes.json, measurement
 * libs/ingest/src/graph/state-changes.measure.ts). No server, no database: a second or two.
 *
 *   --part tuning|held-out|all   which part of the list (default all; the two are reported apart)
 *   --failures                   also list the pairs that missed, with what the graph held
 *   --json                       the per-part rates as JSON
 */
import { measureStateChanges, ratesOf, type PairResult, type PartRates } from '../../libs/ingest/src/graph/state-changes.measure';

const args = process.argv.slice(2);
if (args.includes('--help')) {
  console.log('usage: npm run eval:state-changes -- [--part tuning|held-out|all] [--failures] [--json]');
  process.exit(0);
}
const partArg = args.includes('--part') ? args[args.indexOf('--part') + 1] : 'all';
if (!['tuning', 'held-out', 'all'].includes(partArg)) {
  console.error(`--part must be tuning, held-out or all (got ${partArg})`);
  process.exit(2);
}
const parts = partArg === 'all' ? (['tuning', 'held-out'] as const) : ([partArg] as const);

const results = measureStateChanges();
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function row(label: string, rates: PartRates): string {
  return `| ${label} | ${rates.changes} | ${pct(rates.ended)} | ${rates.controls} | ${pct(rates.wronglyEnded)} | ${pct(rates.stateFound)} | ${rates.newPairs ? pct(rates.newFound) : '–'} |`;
}

const report: Record<string, PartRates> = {};
for (const part of parts) {
  const mine = results.filter((r) => r.pair.part === part);
  report[part] = ratesOf(mine);
}
if (args.includes('--json')) {
  console.log(JSON.stringify(report, null, 2));
  process.exit(0);
}

for (const part of parts) {
  const mine = results.filter((r) => r.pair.part === part);
  console.log(`\n${part} part`);
  console.log('| category | changes | earlier fact ended | controls | wrongly ended | state fact stored | new fact live |');
  console.log('|---|---|---|---|---|---|---|');
  const categories = [...new Set(mine.map((r) => r.pair.category))];
  for (const category of categories) console.log(row(category, ratesOf(mine.filter((r) => r.pair.category === category))));
  console.log(row(`**all (${part})**`, report[part]));
  if (args.includes('--failures')) printFailures(mine);
}

function printFailures(mine: PairResult[]): void {
  const missed = mine.filter((r) => (r.pair.kind === 'change' && !r.ended) || r.wronglyEnded);
  console.log(`\n${missed.length} missed:`);
  const show = (facts: PairResult['afterState']) =>
    facts.map((f) => `${f.source} ${f.relation} ${f.target}${f.invalidAt ? ` ⊣${f.invalidAt}` : ''}${f.expired ? ' (expired)' : ''}`).join('; ') || '∅';
  for (const r of missed) {
    const wanted = r.pair.ended ?? r.pair.kept!;
    console.log(`- ${r.pair.id} [${r.pair.kind}] ${r.pair.state} / ${r.pair.change}`);
    console.log(`    wants ${wanted.subject} ${wanted.relation} ${wanted.object} ${r.pair.kind === 'change' ? 'ended' : 'kept'}; state stored: ${r.stateFound}`);
    console.log(`    after state:  ${show(r.afterState)}`);
    console.log(`    after change: ${show(r.afterChange)}`);
  }
}
