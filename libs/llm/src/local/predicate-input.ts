import type { Mention } from './mentions';
import { GROUP_HEADS, POSITION_VERBS, SCHOOL_HEADS } from './vocabulary-words';

/**
 * What the relation vocabulary (`canonicalPredicate`, vocabulary.ts and verb-predicates.ts) is
 * asked about a clause, and what it can tell of the clause's names.
 */

export interface PredicateInput {
  /** The relation built from the words ("works_for", "nurse_at", "docked_in"). */
  relation: string;
  lemma: string;
  particle: string | null;
  prep: string | null;
  copula: boolean;
  passive: boolean;
  /** The main verb is a gerund ("is seeing", "stopped volunteering"). */
  gerund: boolean;
  past: boolean;
  /** The noun after a copula ("nurse" in "is a nurse at"), or the head of a direct object ("job"). */
  noun: string | null;
  /** "is Maria's husband": the object is the possessor of the noun. */
  possessed: boolean;
  /** "now", "these days": the sentence says the state is new. */
  now: boolean;
  /** The title before the object's name ("dr" in "switched to Dr. Kapoor"), lowercase. */
  title?: string | null;
  /** The word after the object's name, lowercase ("home" in "calls Aarhus home"). */
  next?: string | null;
  /** "the new owner of": the clause gives the fact a new holder. */
  fresh?: boolean;
  /** "The Rosetta Stone": the subject's name follows "the" (a thing, not a person). */
  sourceArticle?: boolean;
  /** "is a manager at": the copula's noun has an indefinite article. */
  indefinite?: boolean;
  /** "was at Heathrow": a copula in the simple past (where one was, not where one works). */
  visit?: boolean;
  source: Mention;
  target: Mention;
}

export interface Predicate {
  relation: string;
  /** The fact runs from the object to the subject ("belongs to Olivia" → Olivia `owns` it). */
  reversed?: boolean;
}

export const lastWord = (name: string) => name.toLowerCase().split(/\s+/).pop() ?? '';
export const isPerson = (m: Mention) => m.type === 'person';
export const isPlace = (m: Mention) => m.type === 'location';
/** A person, or a name no tagger typed ("Leo", "Holly"): someone, where the verb takes people. */
export const isSomeone = (m: Mention) => isPerson(m) || (m.type === 'concept' && !m.common);
export const isGroup = (m: Mention) => GROUP_HEADS.has(lastWord(m.name));
export const isSchool = (m: Mention) => SCHOOL_HEADS.has(lastWord(m.name));
export const isPositionParticiple = (word: string) => [word.slice(0, -2), word.slice(0, -1)].some((stem) => POSITION_VERBS.has(stem));
/** "Greenfield School", "the Hale Museum": a place the tagger found that is an institution people work at. */
export const INSTITUTION_HEADS = new Set(
  'museum gallery library hotel bank church theatre theater zoo airport station restaurant cafe bakery shop store factory studio clinic hospital infirmary hospice surgery centre center'.split(' '),
);
export const isWorkplace = (m: Mention) => isSchool(m) || INSTITUTION_HEADS.has(lastWord(m.name));
/** A place no one works at as at an employer ("a nurse in Leeds"). */
export const isPlainPlace = (m: Mention) => isPlace(m) && !isWorkplace(m);
export const isHospital = (m: Mention) => ['hospital', 'clinic', 'infirmary', 'hospice', 'sanatorium'].includes(lastWord(m.name));
/** "the Abbott family": a name before "family" is a household, people. */
export const isFamily = (p: PredicateInput) => /^family\b/.test(p.next ?? '') && !p.target.common;
