import type { Doc } from './nlp';

const MONTHS = '(january|february|march|april|may|june|july|august|september|october|november|december)';

/**
 * Corrections to the tagger's reading of month names, made on the document itself, since dates
 * are found there (`findDates` matches `#Date+`):
 * - "Acme closed in May": read as the phrasal verb "close in", the month became a name (and the
 *   fact `closed_in May`). A capitalized month right after "in", "since", "until", "by" and the
 *   like is the month, and "in" before it a preposition.
 * - "Pia left Slaughter & May in April": a month after "&" is part of a firm's name, not a date
 *   ("May in April" was read as one).
 */
export function retagMonths(doc: Doc): void {
  doc.match(`(in|since|until|till|by|from|before|after|during|through) [${MONTHS}]`, 0).forEach((month) => {
    if (/^\p{Lu}/u.test(month.text().trim())) month.tag('Month');
  });
  doc.match('[in] #Month', 0).unTag('Particle').unTag('Verb').tag('Preposition');
  doc.match(`& [${MONTHS}]`, 0).unTag('Date').unTag('Month');
}
