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
