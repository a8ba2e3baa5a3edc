import { isVerbish } from './clauses';
import { HONORIFICS, singularNoun } from './lexicon';
import type { Mention } from './mentions';
import type { Token } from './nlp';
import { withoutEx } from './state-nouns';
import { canonicalPredicate, OFFICE_ROLES, PERSONAL_NOUNS } from './vocabulary';

/**
 * A state said in an apposition: "Tom, a nurse at St. Mary's, lives in Leeds", "Ravi, formerly
 * of Infosys, now works at TCS", "Ken Adams, the former CEO of Soylent, …". The phrase between
 * the commas says what the copula would ("Tom is a nurse at St. Mary's"), so it gets the same
 * name in the vocabulary; a phrase the vocabulary has no name for gives nothing.
 */

export interface AppositionFact {
  source: Mention;
  target: Mention;
  relation: string;
  ended: boolean;
}

const FORMERLY = new Set(['formerly', 'previously', 'former', 'ex', 'once', 'late']);
const DETERMINERS = new Set(['a', 'an', 'the', 'his', 'her', 'their', 'its']);
const PREPOSITIONS = new Set(['of', 'at', 'with', 'for', 'in']);
const STATES = new Set(
  'works_at teaches_at member_of studies_at lives_in patient_of patient_at married_to dates engaged_to friends_with owns plays_for held_at stays_at volunteers_at graduated_from'.split(' '),
);

export function appositionFacts(toks: Token[], mentions: Mention[], mentionAt: Map<number, Mention>, base: number): AppositionFact[] {
  const out: AppositionFact[] = possessiveAppositions(toks, mentions, mentionAt, base);
  for (const source of mentions) {
    if (source.common || source.type === 'location') continue;
    let k = source.end - base;
    if (k >= toks.length || !/,/.test(toks[k - 1].post)) continue;
    let ended = false;
    if (FORMERLY.has(toks[k].normal)) {
      ended = true;
      k++;
    }
    const determiner = DETERMINERS.has(toks[k]?.normal ?? '') ? toks[k++].normal : null;
    let head: string | null = null;
    let n = 0;
    while (k < toks.length && n < 4 && !mentionAt.has(k) && !PREPOSITIONS.has(toks[k].normal) && isPhraseWord(toks[k]) && !/[,;:]/.test(toks[k - 1].post)) {
      const word = withoutEx(singularNoun(toks[k].normal));
      if (FORMERLY.has(toks[k].normal) || word.former) ended = true;
      head = word.noun;
      k++;
      n++;
    }
    const prep = toks[k]?.normal;
    if (!prep || !PREPOSITIONS.has(prep) || /[,;:]/.test(toks[k - 1].post)) continue;
    k++;
    if (toks[k]?.normal === 'the') k++;
    const target = mentionAt.get(k);
    if (!target || target === source || target.type === 'person') continue;
    // The apposition closes with a comma or the sentence.
    const closing = toks[target.end - base - 1];
    if (target.end - base < toks.length && !/[,.;]/.test(closing.post)) continue;
    if (head === null) {
      // "Ravi, formerly of Infosys, …": worked there.
      if (ended && !determiner && (prep === 'of' || prep === 'at') && target.type !== 'location') out.push({ source, target, relation: 'works_at', ended });
      continue;
    }
    const named = canonicalPredicate({
      relation: `${head}_${prep}`,
      lemma: 'be',
      particle: null,
      prep,
      copula: true,
      passive: false,
      gerund: false,
      past: false,
      noun: head,
      possessed: false,
      now: false,
      source,
      target,
      indefinite: determiner === 'a' || determiner === 'an',
    });
    // Only a state the vocabulary names: "Paris, the capital of France" stays a description.
    if (!STATES.has(named.relation) && !OFFICE_ROLES.has(head)) continue;
    const [from, to] = named.reversed ? [target, source] : [source, target];
    out.push({ source: from, target: to, relation: named.relation, ended });
  }
  return out;
}

function isPhraseWord(t: Token): boolean {
  return (t.tags.has('Noun') || t.tags.has('Adjective')) && !t.tags.has('Pronoun') && !isVerbish(t) && !t.tags.has('Value');
}

const NAMED_TYPES = new Set(['person', 'concept']);
const DEPUTIES = new Set(['deputy', 'assistant']);
const TITLE_WORDS = new Set([...HONORIFICS, 'councillor', 'cllr', 'judge', 'senator', 'governor']);
/** Words between a possessive and the noun of a role ("Morrisons' new deputy manager"). */
const QUALIFIERS = new Set(['new', 'current', 'deputy', 'assistant', 'acting', 'interim', 'head', 'senior', 'lead', 'chief', 'general', 'longtime', 'long-time']);

/**
 * A partner or an office named beside the name that says whose: "Tom's wife, Sara, is a
 * dentist", "Tom's wife Sara", "Sara, Tom's wife, …", "Vikram, Halden Logistics' CFO, …",
 * "Acme's CEO, Jane Park, …" ("Tom's ex-wife, Sara": one that was).
 */
function possessiveAppositions(toks: Token[], mentions: Mention[], mentionAt: Map<number, Mention>, base: number): AppositionFact[] {
  const out: AppositionFact[] = [];
  const named = (m: Mention | undefined): m is Mention => m !== undefined && !m.common && NAMED_TYPES.has(m.type);
  for (const owner of mentions) {
    if (owner.common) continue;
    const last = toks[owner.end - base - 1];
    // (A plural's apostrophe may be left after the word: "Owls'".)
    if (!last || !(last.tags.has('Possessive') || /['’]s?$/.test(last.text) || /^['’]/.test(last.post)) || /[,;:]/.test(last.post)) continue;
    let at = owner.end - base + (toks[owner.end - base]?.tags.has('Elided') ? 1 : 0);
    // ("Morrisons' new deputy manager, Kelly Okafor": past the words before the noun.)
    let earlier = false;
    while (at + 1 < toks.length && at - owner.end + base < 3 && (QUALIFIERS.has(toks[at].normal) || FORMERLY.has(toks[at].normal)) && !/[,;:]/.test(toks[at].post)) {
      if (FORMERLY.has(toks[at].normal)) earlier = true;
      at++;
    }
    const word = toks[at];
    if (!word) continue;
    const { noun, former: exNoun } = withoutEx(singularNoun(word.normal));
    const former = exNoun || earlier;
    const partner = PERSONAL_NOUNS[noun];
    // (Whether the noun names a state at all, before its holder is found: the owner stands in for it.)
    const office = partner ? null : officeOf(noun, owner, owner);
    if (!partner && !OFFICE_ROLES.has(noun) && !(office && STATES.has(office))) continue;
    // ("Whitby's mayor": a place has offices, not partners or staff.)
    if (owner.type === 'location' && !OFFICE_ROLES.has(noun)) continue;
    if (partner && !named(owner)) continue;
    // "Tom's wife, Sara," / "Tom's wife Sara": the name right after the noun; "Sara, Tom's
    // wife, …": the name before the apposition.
    // ("Whitby's new mayor, Councillor Neil Lyle": past the title before the name.)
    let next = at + 1;
    while (next < toks.length && next - at <= 2 && (TITLE_WORDS.has(toks[next].normal.replace(/\.$/, '')) || toks[next].tags.has('Honorific'))) next++;
    const after = mentionAt.get(at + 1) ?? mentionAt.get(next);
    const previous = toks[owner.start - base - 1];
    const before = previous && /,/.test(previous.post) && /,/.test(word.post) ? mentions.find((m) => m.end === owner.start) : undefined;
    for (const holder of [after, before]) {
      if (!named(holder) || holder === owner) continue;
      if (partner) {
        out.push({ source: owner, target: holder, relation: partner, ended: former });
        continue;
      }
      // ("Morrisons' deputy manager": a deputy's is a job there, not the office.)
      const deputy = toks.slice(owner.end - base, at).some((t) => DEPUTIES.has(t.normal));
      out.push({ source: holder, target: owner, relation: deputy && OFFICE_ROLES.has(noun) ? 'works_at' : officeOf(noun, holder, owner), ended: former });
    }
  }
  return out;
}

/** The fact "the owner's <noun>" states of its holder ("Acme's CEO" → ceo_of), as the copula would ("is the CEO of Acme"). */
function officeOf(noun: string, holder: Mention, owner: Mention): string {
  return canonicalPredicate({ relation: `${noun}_of`, lemma: 'be', particle: null, prep: 'of', copula: true, passive: false, gerund: false, past: false, noun, possessed: true, now: false, source: holder, target: owner }).relation;
}
