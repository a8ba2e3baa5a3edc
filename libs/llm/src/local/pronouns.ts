import { isVerbish } from './clauses';
import type { Mention } from './mentions';
import type { ParsedText, Token } from './nlp';

/**
 * "Priya stepped down as CTO; Dan replaced her.", "Sofia was tired of retail. She quit in May.":
 * a personal pronoun stands for the last person the text named before it whose gender it fits
 * (a name the lexicon gives no gender fits either). The pronoun becomes a mention of that
 * person, so the facts of its clause are theirs; a name a pronoun stands for is a person's.
 * Possessives ("her job") and "it" / "they" (a thing, a group or several people) stand for
 * no one here.
 */

type Gender = 'male' | 'female' | null;

const SUBJECT_OR_OBJECT: Readonly<Record<string, 'male' | 'female'>> = { he: 'male', him: 'male', she: 'female', her: 'female' };

/** The people named so far, across the paragraphs of one text, newest last. */
export interface PersonMemory {
  people: Array<{ mention: Mention; gender: Gender }>;
}

export function pronounMentions(parsed: ParsedText, mentions: Mention[], memory: PersonMemory): Mention[] {
  const out: Mention[] = [];
  const byStart = new Map(mentions.map((m) => [m.start, m]));
  const covered = new Set<number>();
  for (const m of mentions) for (let i = m.start; i < m.end; i++) covered.add(i);
  for (const sentence of parsed.sentences) {
    const toks = sentence.tokens;
    for (let k = 0; k < toks.length; k++) {
      const token = toks[k];
      const mention = byStart.get(token.index);
      if (mention) {
        if (canBeAntecedent(mention, toks, k, parsed)) memory.people.push({ mention, gender: genderOf(parsed.tokens.slice(mention.start, mention.end)) });
        continue;
      }
      if (covered.has(token.index)) continue;
      const gender = SUBJECT_OR_OBJECT[token.normal];
      if (!gender || (token.normal === 'her' && possessive(toks, k))) continue;
      // "Nimbus replaced her": an object pronoun is not its own clause's subject (that would be "herself").
      const object = token.normal === 'him' || token.normal === 'her';
      const ownSubject = (m: Mention) => object && m.sentence === token.sentence && parsed.tokens.slice(m.end, token.index).every((t) => isVerbish(t) || t.tags.has('Adverb'));
      const antecedent = [...memory.people].reverse().find((p) => (p.gender === null || p.gender === gender) && !ownSubject(p.mention));
      if (!antecedent) continue;
      antecedent.mention.type = 'person';
      if (antecedent.gender === null) antecedent.gender = gender;
      out.push({ start: token.index, end: token.index + 1, name: antecedent.mention.name, type: 'person', sentence: token.sentence });
    }
  }
  return out;
}

/** A person, or a name the tagger left untyped that is the subject of a verb ("Priya retired"). */
function canBeAntecedent(mention: Mention, toks: Token[], k: number, parsed: ParsedText): boolean {
  if (mention.type === 'person') return true;
  if (mention.type !== 'concept' || mention.common) return false;
  const words = parsed.tokens.slice(mention.start, mention.end);
  if (words.some((t) => /^\p{Lu}{2,}$/u.test(t.text))) return false;
  const before = toks[k - 1];
  if (before && (before.tags.has('Determiner') || before.tags.has('Preposition') || before.normal === 'the')) return false;
  let after = mention.end - toks[0].index;
  while (after < toks.length && toks[after].tags.has('Adverb')) after++;
  return toks[after] !== undefined && isVerbish(toks[after]);
}

function genderOf(tokens: Token[]): Gender {
  const first = tokens.find((t) => t.text !== '');
  if (!first) return null;
  if (first.tags.has('MaleName') && !first.tags.has('FemaleName')) return 'male';
  if (first.tags.has('FemaleName') && !first.tags.has('MaleName')) return 'female';
  return null;
}

/** "her job", "her new flat": a determiner of the noun after it, not the person. */
function possessive(toks: Token[], k: number): boolean {
  const next = toks[k + 1];
  if (!next || /[.,;:!?)]/.test(toks[k].post)) return false;
  return (next.tags.has('Noun') || next.tags.has('Adjective') || next.tags.has('Value')) && !next.tags.has('Preposition') && !next.tags.has('Date') && !isVerbish(next);
}
