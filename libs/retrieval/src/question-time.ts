import { fuseByRank } from './fusion';
import type { RetrievedChunk } from './retrieval.types';

/**
 * A question that names a time ("Where did Maya travel in May 2024?", "in 2019", "on 3 March
 * 2024") asks about what happened then, and a dated text tells of its own recent past: a
 * conversation's session, a diary entry or a report is dated on or shortly after the events it
 * tells ("last weekend", "two weeks ago"). So the passages of documents dated within the named
 * period, or within a month after it, are put beside the ranking as one more ranked list (in the
 * ranking's own order), and raised by the fusion. Documents without a date are left where they
 * were: a corpus without dates (HotpotQA's passages) ranks exactly as before.
 */

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH = `(${MONTHS.join('|')}|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\\.?`;
const YEAR = '((?:19|20)\\d\\d)';

/** How long after a period a text telling of it is still taken to be about it. */
export const TOLD_WITHIN_DAYS_AFTER = 31;

/** The fusion weight of the passages told within the named period (the ranking itself weighs 1). */
export const TOLD_IN_PERIOD_WEIGHT = 1;

export interface Period {
  from: Date;
  /** Exclusive. */
  to: Date;
}

const monthIndex = (word: string) => MONTHS.findIndex((m) => m.startsWith(word.toLowerCase().replace(/\.$/, '').slice(0, 3)));

/**
 * The period a question names, the narrowest written: a day ("3 March 2024", "March 3, 2024",
 * "2024-03-03"), a month with its year ("May 2024", "May of 2024", "2024-05"), or a year ("in
 * 2023"). A month without a year names no period here: which year it means is not the
 * question's to say to a ranker.
 */
export function periodNamed(question: string): Period | undefined {
  const q = question.toLowerCase();
  const day = (y: number, m: number, d: number): Period => ({ from: new Date(Date.UTC(y, m, d)), to: new Date(Date.UTC(y, m, d + 1)) });
  let m = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}\\s*,?\\s+${YEAR}\\b`).exec(q);
  if (m && monthIndex(m[2]) >= 0) return day(Number(m[3]), monthIndex(m[2]), Number(m[1]));
  m = new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?\\s*,?\\s+${YEAR}\\b`).exec(q);
  if (m && monthIndex(m[1]) >= 0) return day(Number(m[3]), monthIndex(m[1]), Number(m[2]));
  m = /\b((?:19|20)\d\d)-(\d\d)(?:-(\d\d))?\b/.exec(q);
  if (m && Number(m[2]) >= 1 && Number(m[2]) <= 12) {
    const [y, mo] = [Number(m[1]), Number(m[2]) - 1];
    return m[3] ? day(y, mo, Number(m[3])) : { from: new Date(Date.UTC(y, mo, 1)), to: new Date(Date.UTC(y, mo + 1, 1)) };
  }
  m = new RegExp(`\\b${MONTH}\\s+(?:of\\s+)?${YEAR}\\b`).exec(q);
  if (m && monthIndex(m[1]) >= 0) {
    const [y, mo] = [Number(m[2]), monthIndex(m[1])];
    return { from: new Date(Date.UTC(y, mo, 1)), to: new Date(Date.UTC(y, mo + 1, 1)) };
  }
  m = new RegExp(`\\b(?:in|during|of|throughout|since|before|after|by)\\s+${YEAR}\\b`).exec(q);
  if (m) return { from: new Date(Date.UTC(Number(m[1]), 0, 1)), to: new Date(Date.UTC(Number(m[1]) + 1, 0, 1)) };
  return undefined;
}

/** Whether a passage's document is dated within the period or shortly after it (when it would tell of it). */
export function toldWithin(chunk: Pick<RetrievedChunk, 'documentDate'>, period: Period): boolean {
  const date = chunk.documentDate?.getTime();
  if (date === undefined) return false;
  return date >= period.from.getTime() && date < period.to.getTime() + TOLD_WITHIN_DAYS_AFTER * 86_400_000;
}

/**
 * A question about the present ("Where does Maya work now?", "Is Tom still at Acme?") asks for
 * the state that holds today, and when dated passages disagree about a state the later one has
 * the update (a move, a new job, a break-up). Among the best passages of the ranking (only
 * those: a passage that does not match is not raised for being new), the dated ones are put
 * beside it newest first, weighed as the ranking is: with the fusion's small k the ranking's
 * first passage keeps its place unless a newer one is close behind it.
 */
const PRESENT = /\b(?:now|nowadays|currently|current|these days|at the moment|at present|presently|still|latest|anymore|any more|today)\b/i;

/** How many of the ranking's best passages the present's preference reorders. */
export const NEWEST_AMONG = 10;

/** The fusion weight of those passages newest first (the ranking weighs 1; at 0.5 a newer passage third moved no place). */
export const NEWEST_FIRST_WEIGHT = 1;

export function asksAboutThePresent(question: string): boolean {
  return PRESENT.test(question) && periodNamed(question) === undefined;
}

/** The ranking after the question's time: its period's passages raised, or for the present the newest of its best. */
export function rankForTheTimeAsked(ranked: RetrievedChunk[], question: string | undefined): RetrievedChunk[] {
  if (!question) return ranked;
  if (asksAboutThePresent(question)) return preferNewest(ranked);
  return raiseToldInPeriod(ranked, question);
}

function preferNewest(ranked: RetrievedChunk[]): RetrievedChunk[] {
  const dated = ranked.slice(0, NEWEST_AMONG).filter((c) => c.documentDate !== null);
  if (new Set(dated.map((c) => c.documentDate!.getTime())).size < 2) return ranked;
  const newestFirst = [...dated].sort((a, b) => b.documentDate!.getTime() - a.documentDate!.getTime());
  return fuseByRank(
    [
      { items: ranked, weight: 1 },
      { items: newestFirst, weight: NEWEST_FIRST_WEIGHT },
    ],
    (c) => c.chunkId,
  ).map((f) => f.item);
}

/** The ranking with the passages told within the question's period raised (unchanged when it names none, or none is dated then). */
export function raiseToldInPeriod(ranked: RetrievedChunk[], question: string | undefined): RetrievedChunk[] {
  const period = question ? periodNamed(question) : undefined;
  if (!period) return ranked;
  const told = ranked.filter((c) => toldWithin(c, period));
  if (told.length === 0) return ranked;
  return fuseByRank(
    [
      { items: ranked, weight: 1 },
      { items: told, weight: TOLD_IN_PERIOD_WEIGHT },
    ],
    (c) => c.chunkId,
  ).map((f) => f.item);
}
