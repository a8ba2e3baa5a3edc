import { isAdverb } from './clauses';
import { verbLemma } from './conjugation';
import type { Mention } from './mentions';
import type { ParsedText } from './nlp';

/** Verbs of coming to live somewhere: "moved there", "settled there" (not "went there", a visit). */
const SETTLING_VERBS = new Set(['move', 'relocate', 'settle', 'live', 'emigrate']);

/**
 * "Sana bought a house in York and moved there in May": "there" right after a verb of settling
 * stands for the last place the text named before it, in its sentence or the one before, and
 * becomes a mention of that place, so that the move has its place.
 */
export function placeProFormMentions(parsed: ParsedText, mentions: readonly Mention[]): Mention[] {
  const places = mentions.filter((m) => m.type === 'location');
  const out: Mention[] = [];
  for (const token of parsed.tokens) {
    if (token?.normal !== 'there') continue;
    let k = token.index - 1;
    while (k >= 0 && parsed.tokens[k] && isAdverb(parsed.tokens[k])) k--;
    const verb = parsed.tokens[k];
    if (!verb?.tags.has('Verb') || !SETTLING_VERBS.has(verbLemma(verb))) continue;
    const antecedent = places.filter((m) => m.end <= k && token.sentence - m.sentence <= 1).pop();
    if (antecedent) out.push({ start: token.index, end: token.index + 1, name: antecedent.name, type: 'location', sentence: token.sentence });
  }
  return out;
}
