/* How much of BM25's postings an exact top k needs, on a seeded bench database: each question's
 * postings in the large graph are read into memory and scored exhaustively, then an exact pruned
 * ranking is simulated on them (docs/QUALITY.md, "2 Dec, 11:10–12:50"): θ0, the k-th best exact
 * score of each lexeme's k best postings (frequency down, length up); the short lists read
 * whole, the long ones only above a term-score threshold (θ0 shared in proportion to IDF); the
 * candidates probed for the long lists they were not read in, unless their upper bound is below
 * θ1 (the k-th best lower bound). It prints postings read and key probes against every posting,
 * what a perfect θ (the true k-th score) would read, and the same run with θ0 taken from lower
 * bounds alone (no seed probes: the short lists and each long list's first k postings). RULE picks the short lists: `best` (the
 * split reading least, known only in hindsight), `dfX` (df at most X·N), or a count.
 * Usage: DATABASE_URL=… [RULE=df0.1] npx tsx bench/experiments/bm25-postings.ts <questions.json> [questions] [k]
 */
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { BM25_B as B, BM25_K1 as K1 } from '../../libs/retrieval/src/lexical.queries';

const [questionsPath, countArg, kArg] = process.argv.slice(2);
const count = Number(countArg ?? 30);
const k = Number(kArg ?? 20);

interface Posting {
  lexeme: string;
  chunk: number;
  f: number;
  len: number;
}

async function main() {
  const file = JSON.parse(readFileSync(questionsPath, 'utf8'));
  const tenantId = file.large_tenant.tenant_id;
  const graphId = Number(file.large_tenant.graph_id);
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  const corpus = (
    await client.query(`SELECT count(*)::float8 AS n, avg(term_count)::float8 AS mean, percentile_cont(ARRAY[0.1,0.5,0.9]) WITHIN GROUP (ORDER BY term_count) AS p
      FROM chunks WHERE tenant_id = $1 AND graph_id = $2`, [tenantId, graphId])
  ).rows[0];
  console.log(`N ${corpus.n} mean length ${corpus.mean.toFixed(1)} p10/50/90 ${corpus.p}`);
  const tf = (f: number, len: number) => (f * (K1 + 1)) / (f + K1 * (1 - B + (B * len) / corpus.mean));
  const totals: Record<string, number> = { postings: 0, twoPhase: 0, probes: 0, oracle: 0 };
  for (const q of file.questions.slice(0, count)) {
    const lexemes: string[] = (await client.query(`SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', $1))`, [q.query])).rows.map((r) => r.lexeme);
    const rows: Posting[] = (
      await client.query(
        `SELECT lexeme, chunk_id AS chunk, frequency AS f, chunk_length AS len FROM chunk_terms WHERE tenant_id = $1 AND graph_id = $2 AND lexeme = ANY($3)`,
        [tenantId, graphId, lexemes],
      )
    ).rows.map((r) => ({ ...r, chunk: Number(r.chunk) }));
    const lists = new Map<string, Posting[]>();
    for (const p of rows) (lists.get(p.lexeme) ?? lists.set(p.lexeme, []).get(p.lexeme)!).push(p);
    const idf = new Map([...lists].map(([l, ps]) => [l, Math.log(1 + (corpus.n - ps.length + 0.5) / (ps.length + 0.5))]));
    const byPair = new Map(rows.map((p) => [`${p.lexeme} ${p.chunk}`, p]));
    const postingOf = (l: string, c: number, tau: number) => {
      const p = byPair.get(`${l} ${c}`);
      return p !== undefined && tf(p.f, p.len) >= tau;
    };
    const score = new Map<number, number>();
    for (const p of rows) score.set(p.chunk, (score.get(p.chunk) ?? 0) + idf.get(p.lexeme)! * tf(p.f, p.len));
    const ranked = [...score.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const theta = ranked.length >= k ? ranked[k - 1][1] : 0;
    // Phase 1: each list's best m postings in (frequency DESC, length ASC) order, scored exactly.
    const m = k;
    const seen = new Set<number>();
    let phase1 = 0;
    for (const ps of lists.values()) {
      const top = [...ps].sort((a, b) => b.f - a.f || a.len - b.len).slice(0, m);
      phase1 += top.length;
      for (const p of top) seen.add(p.chunk);
    }
    const seedScores = [...seen].map((c) => score.get(c)!).sort((a, b) => b - a);
    const theta0 = seedScores.length >= k ? seedScores[k - 1] : 0;
    // Phase 2 for a given θ0: the lists sorted by length; the shortest read whole (threshold ~0),
    // the rest share θ0 in proportion to idf. The best split is the one reading least.
    const plan = (bound: number, rule = process.env.RULE ?? 'best') => {
      const sorted = [...lists.entries()].sort((a, b) => a[1].length - b[1].length);
      let best = { read: Infinity, candidates: 0, probes: Infinity };
      const fixed = rule === 'best' ? -1 : rule.startsWith('df') ? sorted.filter(([, ps]) => ps.length <= Number(rule.slice(2)) * corpus.n).length : Number(rule);
      for (let whole = 0; whole <= sorted.length; whole++) {
        if (fixed >= 0 && whole !== Math.min(fixed, sorted.length)) continue;
        const rest = sorted.slice(whole);
        const restIdf = rest.reduce((s, [l]) => s + idf.get(l)!, 0);
        const tau = restIdf > 0 ? (bound * (1 - 1e-9)) / restIdf : Infinity;
        // known: partial sums of the postings read; unseen: the thresholds of the partial lists a
        // candidate was not read in (its term score there is below them).
        const known = new Map<number, number>();
        const seenIn = new Map<number, number>();
        let read = 0;
        for (const [l, ps] of sorted.slice(0, whole)) for (const p of ps) {
          read++;
          known.set(p.chunk, (known.get(p.chunk) ?? 0) + idf.get(l)! * tf(p.f, p.len));
        }
        for (const [l, ps] of rest)
          for (const p of ps)
            if (tf(p.f, p.len) >= tau) {
              read++;
              known.set(p.chunk, (known.get(p.chunk) ?? 0) + idf.get(l)! * tf(p.f, p.len));
              seenIn.set(p.chunk, (seenIn.get(p.chunk) ?? 0) + 1);
            }
        const lower = [...known.values()].sort((a, b) => b - a);
        const theta1 = Math.max(bound, lower.length >= k ? lower[k - 1] : 0);
        // A candidate is probed for each long list it was not read in, unless even the most it
        // could get there (below each such list's threshold) leaves it under θ1.
        let probes = 0;
        for (const [c, sum] of known) {
          const unseen = rest.filter(([l]) => !postingOf(l, c, tau));
          const upper = sum + unseen.reduce((s, [l]) => s + idf.get(l)! * tau, 0);
          if (upper >= theta1) probes += unseen.length;
        }
        if (read + 3 * probes < best.read + 3 * best.probes) best = { read, candidates: known.size, probes };
      }
      return best;
    };
    // θ0 without probes: lower bounds from the short lists read whole and each long list's top m.
    const lowerSeed = new Map<number, number>();
    for (const [l, ps] of lists) {
      const whole = ps.length <= 0.1 * corpus.n;
      const read = whole ? ps : [...ps].sort((a, b) => b.f - a.f || a.len - b.len).slice(0, m);
      for (const p of read) lowerSeed.set(p.chunk, (lowerSeed.get(p.chunk) ?? 0) + idf.get(l)! * tf(p.f, p.len));
    }
    const lows = [...lowerSeed.values()].sort((a, b) => b - a);
    const theta0lb = lows.length >= k ? lows[k - 1] : 0;
    const noProbe = plan(theta0lb, 'df0.1');
    totals.noProbeRead = (totals.noProbeRead ?? 0) + noProbe.read;
    totals.noProbeProbes = (totals.noProbeProbes ?? 0) + noProbe.probes;
    const withSeed = plan(theta0);
    const oracle = plan(theta, 'best');
    totals.postings += rows.length;
    totals.twoPhase += phase1 + withSeed.read;
    totals.probes += withSeed.probes;
    totals.oracle += oracle.read;
    console.log(
      `${String(rows.length).padStart(6)} postings, ${lists.size} lexemes (df ${[...lists.values()].map((p) => p.length).sort((a, b) => a - b).join('/')}), θ ${theta.toFixed(2)} θ0 ${theta0.toFixed(2)} Σidf ${[...idf.values()].reduce((a, b) => a + b, 0).toFixed(2)}: phase1 ${phase1} + phase2 ${withSeed.read} read, ${withSeed.candidates} candidates ${withSeed.probes} probes; oracle θ ${oracle.read} read ${oracle.candidates} candidates`,
    );
  }
  console.log(`total postings ${totals.postings}, two-phase read ${totals.twoPhase} + probes ${totals.probes}, oracle read ${totals.oracle}; no-probe θ0: read ${totals.noProbeRead} probes ${totals.noProbeProbes}`);
  await client.end();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
