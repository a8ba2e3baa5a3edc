import { beforeReference, type DateSpan } from './dates';
import type { VerbGroup } from './clauses';
import { verbForms } from './nlp';

/** A fact's valid time from the date its clause gives (or the text's own date for an ending). */

export function nearestDateBefore(dates: DateSpan[], index: number, used: Set<DateSpan>): DateSpan | null {
  let best: DateSpan | null = null;
  for (const d of dates) if (d.end <= index && !used.has(d)) best = d;
  return best;
}

function shiftBackIfFuture(iso: string, span: DateSpan, group: VerbGroup, referenceDate?: Date): string {
  // "joined in March" said in June means the March before, but the library picks the next one.
  // "Maria quit Deloitte in February": a verb whose past is its bare form, without the -s of a
  // third-person present, is the past.
  const bareFormPast = !group.copula && verbForms(group.lemma).past === group.main.normal;
  if (span.explicitYear || !referenceDate || !(group.main.tags.has('PastTense') || group.past || group.ended || bareFormPast)) return iso;
  return beforeReference({ startsAt: iso, endsAt: null }, span.text, referenceDate).startsAt;
}

export function validityOf(
  span: DateSpan | null,
  group: VerbGroup,
  referenceDate?: Date,
): { validAt: string | null; invalidAt: string | null } {
  if (!span) {
    const endedAt = group.ended && referenceDate && !Number.isNaN(referenceDate.getTime()) ? referenceDate.toISOString() : null;
    return { validAt: null, invalidAt: endedAt };
  }
  const start = shiftBackIfFuture(span.startsAt, span, group, referenceDate);
  switch (span.role) {
    case 'range':
      return { validAt: start, invalidAt: span.endsAt };
    case 'until':
      return { validAt: null, invalidAt: start };
    default:
      return group.ended ? { validAt: null, invalidAt: start } : { validAt: start, invalidAt: null };
  }
}
