import { findDates } from './dates';
import { findMentions } from './mentions';
import { parseText } from './nlp';
import { normalizeWhitespace } from './sentences';

/**
 * The question's text the offline place detector reads: a question names its places early,
 * and the NLP library takes ~55 µs a character on this thread (a 64 KiB question would hold
 * the event loop for seconds, which the keyword stage avoids with worker threads).
 */
export const PLACES_TEXT_LIMIT = 2000;

/**
 * detect_geo without a model: the names in the question that the NLP library types as places,
 * then the other proper nouns it leaves untyped ("Versailles", "Potsdam"), which the gazetteer
 * then accepts or not. People and organizations are not places. As written, in question order,
 * duplicates dropped.
 */
export function detectPlacesLocally(question: string): string[] {
  const text = normalizeWhitespace(question.slice(0, PLACES_TEXT_LIMIT));
  if (!text) return [];
  const parsed = parseText(text);
  const dateTokens = new Set<number>();
  for (const d of findDates(parsed)) for (let i = d.start; i < d.end; i++) dateTokens.add(i);
  const mentions = findMentions(parsed, (i) => dateTokens.has(i)).filter(
    (m) => !m.common && (m.type === 'location' || m.type === 'concept'),
  );
  const places: string[] = [];
  const seen = new Set<string>();
  for (let k = 0; k < mentions.length; k++) {
    let name = mentions[k].name;
    // "Springfield, Missouri": the place and what it lies in, kept together for the gazetteer.
    const next = mentions[k + 1];
    if (next && next.start === mentions[k].end && /,/.test(parsed.tokens[mentions[k].end - 1]?.post ?? '')) {
      name = `${name}, ${next.name}`;
      k++;
    }
    const key = name.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    places.push(name);
  }
  return places;
}
