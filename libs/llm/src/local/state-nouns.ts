import type { VerbGroup } from './clauses';
import { isAdverb } from './clauses';
import { HONORIFICS, singularNoun } from './lexicon';
import type { Mention } from './mentions';
import type { Token } from './nlp';
import { OFFICE_ROLES, PERSONAL_NOUNS } from './vocabulary';
import { GROUP_HEADS } from './vocabulary-words';

/**
 * States named by a noun rather than a verb. English says a state is over by ending its noun
 * ("Tyler's internship at Meta ended", "Eva's marriage to Paul was dissolved", "Olga's
 * membership of the club lapsed", "Nadia's tenure as director of the Tate is over", "Siemens
 * terminated Greta's contract") and says a slot has a new value with a possessive noun and a
 * copula ("Max's new address is in Hamburg", "Sofia's new employer is Mango", "Theo's doctor is
 * Dr. Patel", "The new owner of the Blue Heron is Sam"). The fact is the one the verb form
 * gives ("lives in", "works at", `member_of`, `ceo_of`), ended when the noun's state ended, so
 * that it meets the earlier fact in the store; a period at an organization that ends ("job",
 * "contract", "stint", "loan") is `left`, which ends whatever the holder was there (employee,
 * player, member).
 */

export interface NounFact {
  holder: Mention;
  target: Mention;
  relation: string;
  /** The clause says the state is over. */
  ended: boolean;
  /** A concept made from the words (a role of no named organization). */
  concept?: Mention;
  /** The noun that named the state ("internship", "address"). */
  noun: string;
}

/** A period at an organization: its end is leaving it ("internship at Meta ended" → left Meta). */
const TENURE_NOUNS = new Set(
  'job position post role internship apprenticeship traineeship placement secondment contract employment tenure stint spell career loan residency fellowship'.split(
    ' ',
  ),
);
/** Nouns whose state is one fact: "membership of" → `member_of`, "marriage to" → `married_to`. */
const STATE_NOUNS: Readonly<Record<string, string>> = {
  membership: 'member_of',
  marriage: 'married_to',
  engagement: 'engaged_to',
  // "called off their wedding": the engagement is over.
  wedding: 'engaged_to',
  relationship: 'dates',
  romance: 'dates',
  friendship: 'friends_with',
  studies: 'studies_at',
  study: 'studies_at',
  degree: 'studies_at',
  phd: 'studies_at',
  doctorate: 'studies_at',
  ownership: 'owns',
  stay: 'stays_at',
};
/** "tenure as director of", "term as mayor of", "time as captain of": the role's period. */
const ROLE_PERIOD_NOUNS = new Set(['tenure', 'term', 'time', 'stint', 'spell', 'reign', 'career']);

/** Verbs (lemma, or lemma + particle) whose subject is a state noun that ended. */
const ENDING_VERBS = new Set([
  'end', 'expire', 'lapse', 'finish', 'conclude', 'terminate', 'cancel', 'dissolve', 'annul', 'revoke',
  'run out', 'fall apart', 'break down', 'break up', 'fizzle out', 'wind down',
]);
/** Verbs whose object is a state noun they end: "Siemens terminated Greta's contract", "called off her engagement". */
const ENDING_TRANSITIVES = new Set(['end', 'terminate', 'cancel', 'dissolve', 'annul', 'revoke', 'call off', 'break off', 'give up', 'quit', 'leave', 'resign', 'surrender', 'relinquish']);
const LAPSING = new Set(['lapse', 'expire', 'run']);
const ADJECTIVES_OF_NEW = new Set(['new', 'current', 'latest', 'present']);
const ADJECTIVES_OF_FORMER = new Set(['former', 'old', 'previous', 'ex', 'erstwhile', 'one-time', 'late']);

/** "X's [new] NOUN is Y": the slot a possessed noun names, the holder being the possessor. */
const SLOT_NOUNS: Readonly<Record<string, string>> = {
  address: 'lives_in',
  home: 'lives_in',
  house: 'lives_in',
  flat: 'lives_in',
  apartment: 'lives_in',
  residence: 'lives_in',
  hometown: 'lives_in',
  employer: 'works_at',
  workplace: 'works_at',
  job: 'works_at',
  company: 'works_at',
  firm: 'works_at',
  doctor: 'patient_of',
  physician: 'patient_of',
  gp: 'patient_of',
  dentist: 'patient_of',
  therapist: 'patient_of',
  psychiatrist: 'patient_of',
  paediatrician: 'patient_of',
  pediatrician: 'patient_of',
  team: 'plays_for',
  school: 'studies_at',
  university: 'studies_at',
  college: 'studies_at',
  ...PERSONAL_NOUNS,
};
/** Slots whose value is a person, and those whose value is never one. */
const PERSON_VALUED = new Set(['patient_of', ...Object.values(PERSONAL_NOUNS)]);
const PLACE_VALUED = new Set(['lives_in']);

const STATE_PREPOSITIONS = new Set(['at', 'with', 'of', 'in', 'to', 'for', 'on']);
const isStateNoun = (noun: string) =>
  TENURE_NOUNS.has(noun) || noun in STATE_NOUNS || noun in SLOT_NOUNS || noun === 'owner' || OFFICE_ROLES.has(noun);

const isPossessive = (t: Token | undefined) => t !== undefined && (t.tags.has('Possessive') || /['’]s$/.test(t.text) || /^['’]/.test(t.post));
const isPronounPossessive = (t: Token | undefined) => t !== undefined && ['his', 'her', 'their', 'its'].includes(t.normal);
const phrasal = (group: VerbGroup) => (group.particle ? `${group.lemma} ${group.particle}` : group.lemma);

/** The noun without an "ex-" prefix, and whether it had one ("ex-husband" → husband, former). */
export function withoutEx(noun: string): { noun: string; former: boolean } {
  const match = /^ex-(\p{L}{2,}.*)$/u.exec(noun);
  return match ? { noun: match[1], former: true } : { noun, former: false };
}

interface NounPhrase {
  holder: Mention | null;
  /** Index of the head noun. */
  head: number;
  noun: string;
  /** "new", "current": the clause gives the slot a new value; "former": an old one. */
  fresh: boolean;
  former: boolean;
  /** After "of" / "at" / "to" / "with": the organization or person of the state. */
  target: Mention | null;
  prep: string | null;
  /** "tenure as director of Tate Modern": the role named after "as". */
  role: string | null;
  roleToken: Token | null;
  /** "Sam and Jo's marriage", "Sam and Jo called off their engagement": the other one of a couple. */
  partner?: Mention | null;
  /** First and last index of the phrase. */
  start: number;
  end: number;
}

/**
 * The noun phrase "[the] [X's] [new] NOUN [as ROLE] [prep Y]" that ends at `last` (inclusive)
 * or starts at `first`. `holderBefore`: the possessor is a named mention before the noun.
 */
function phraseEndingAt(toks: Token[], last: number, mentionAt: Map<number, Mention>, mentionEndingAt: Map<number, Mention>, base: number): NounPhrase | null {
  let k = last;
  let target: Mention | null = null;
  let prep: string | null = null;
  const named = mentionEndingAt.get(k);
  if (named) {
    let before = named.start - base - 1;
    if (toks[before]?.tags.has('Determiner')) before--;
    const p = toks[before];
    if (!p || !STATE_PREPOSITIONS.has(p.normal)) return null;
    target = named;
    prep = p.normal;
    k = before - 1;
  }
  return phraseFromHead(toks, k, target, prep, mentionAt, mentionEndingAt, base);
}

const DAY_QUALIFIERS = new Set(['working', 'official', 'full']);

function phraseFromHead(
  toks: Token[],
  k: number,
  target: Mention | null,
  prep: string | null,
  mentionAt: Map<number, Mention>,
  mentionEndingAt: Map<number, Mention>,
  base: number,
): NounPhrase | null {
  let role: string | null = null;
  let roleToken: Token | null = null;
  const end = target ? target.end - base - 1 : k;
  // "tenure as director (of X)"
  if (k >= 2 && toks[k - 1]?.normal === 'as' && OFFICE_ROLES.has(singularNoun(toks[k].normal)) && ROLE_PERIOD_NOUNS.has(toks[k - 2].normal)) {
    role = singularNoun(toks[k].normal);
    roleToken = toks[k];
    k -= 2;
  }
  const headToken = toks[k];
  if (!headToken || mentionAt.has(k) || mentionEndingAt.has(k)) return null;
  const { noun, former: exNoun } = withoutEx(singularNoun(headToken.normal));
  // ("term as president": the role says what the period was of; "her last day at": the period's end.)
  // ("her last working day at": the day's adjective between.)
  const dayQualified = DAY_QUALIFIERS.has(toks[k - 1]?.normal ?? '');
  const lastAt = toks[k - 1]?.normal === 'last' ? k - 1 : dayQualified && toks[k - 2]?.normal === 'last' ? k - 2 : -1;
  const lastDay = noun === 'day' && lastAt >= 0;
  if (!isStateNoun(noun) && !role && !lastDay) return null;
  let fresh = false;
  let former = exNoun;
  let j = k - 1;
  // "Tyler's summer internship", "Max's new address", "Raj's former wife".
  while (
    j >= 0 &&
    k - j <= 4 &&
    !mentionEndingAt.has(j) &&
    (toks[j].tags.has('Elided') || (lastDay && j >= lastAt) || (!isPossessive(toks[j]) && (toks[j].tags.has('Adjective') || toks[j].tags.has('Noun') || ADJECTIVES_OF_FORMER.has(toks[j].normal))))
  ) {
    if (ADJECTIVES_OF_NEW.has(toks[j].normal)) fresh = true;
    if (ADJECTIVES_OF_FORMER.has(toks[j].normal)) former = true;
    j--;
  }
  const possessor = mentionEndingAt.get(j);
  const holder = possessor && isPossessive(toks[j]) ? possessor : null;
  const and = holder ? holder.start - base - 1 : -1;
  const partner = and > 0 && toks[and].normal === 'and' ? mentionEndingAt.get(and - 1) ?? null : null;
  const start = partner ? partner.start - base : holder ? holder.start - base : j + 1;
  return { holder, head: k, noun, fresh, former, target, prep, role, roleToken, partner, start, end };
}

/** Nominal facts of one verb group, or none. */
export function nounFacts(
  toks: Token[],
  group: VerbGroup,
  mentionAt: Map<number, Mention>,
  mentionEndingAt: Map<number, Mention>,
  base: number,
  subjects: Mention[],
): NounFact[] {
  const facts = findNounFacts(toks, group, mentionAt, mentionEndingAt, base, subjects);
  for (const fact of facts) retype(fact);
  return facts;
}

/** Names the tagger left untyped get the type the noun gives them ("Max's address": a person). */
function retype(fact: NounFact): void {
  const untyped = (m: Mention) => m.type === 'concept' && !m.common;
  const personal = !['owns', 'acquired'].includes(fact.relation);
  if (untyped(fact.holder) && personal) fact.holder.type = 'person';
  if (untyped(fact.target) && ['works_at', 'member_of', 'left', 'studies_at', 'plays_for'].includes(fact.relation)) fact.target.type = 'organization';
  if (untyped(fact.target) && PERSON_VALUED.has(fact.relation)) fact.target.type = 'person';
}

function findNounFacts(
  toks: Token[],
  group: VerbGroup,
  mentionAt: Map<number, Mention>,
  mentionEndingAt: Map<number, Mention>,
  base: number,
  subjects: Mention[],
): NounFact[] {
  if (group.modal) return [];
  let before = group.start - 1;
  while (before > 0 && isAdverb(toks[before])) before--;
  const after = skipAdverbs(toks, group.end);

  // "X's internship at Y ended", "X's contract with Y was terminated", "X's membership is over".
  const overCopula = group.copula && toks[after]?.normal === 'over';
  const cameToAnEnd = group.lemma === 'come' && toks[group.end]?.normal === 'to' && toks[group.end + 2]?.normal === 'end';
  const notRenewed = group.lemma === 'renew' && group.passive && group.negative;
  const endsSubject = (ENDING_VERBS.has(phrasal(group)) && !group.negative && !group.main.tags.has('Gerund')) || overCopula || cameToAnEnd || notRenewed;
  const inside = (phrase: NounPhrase) => subjects.every((s) => s.start - base >= phrase.start && s.end - base - 1 <= phrase.end);
  if (endsSubject) {
    const phrase = phraseEndingAt(toks, before, mentionAt, mentionEndingAt, base);
    if (phrase?.holder && inside(phrase)) {
      let target = phrase.target;
      // "Greta's contract was terminated by Siemens"
      if (!target && group.passive && toks[group.end]?.normal === 'by') target = mentionAt.get(group.end + 1) ?? null;
      return endedState(phrase, target);
    }
  }

  // "Siemens terminated Greta's contract", "Mia called off her engagement to Noah".
  // "did not renew his membership of": not renewed, it ended.
  const unrenewed = group.lemma === 'renew' && group.negative;
  // "let his membership lapse": the verb after the noun ends it.
  const letLapse = group.lemma === 'let' && !group.negative && toks.slice(group.end, group.end + 8).some((t) => LAPSING.has(t.normal));
  if (((ENDING_TRANSITIVES.has(phrasal(group)) && !group.negative) || unrenewed || letLapse) && !group.passive) {
    const found = objectPhrase(toks, group.end, mentionAt, mentionEndingAt, base, subjects);
    if (found) {
      const organization = subjects.find((s) => s.type !== 'person');
      const target = found.target ?? (found.holder !== subjects[0] ? organization ?? null : null);
      const facts = endedState(found, target);
      // "quit her job at" and "left her post as" have their rules elsewhere; a state noun of its own is read here.
      if (facts.length > 0 && (STATE_NOUNS[found.noun] || found.role || found.holder !== subjects[0] || found.partner)) return facts;
    }
  }

  // "Kim has a new boyfriend, Dave", "Theo has a new doctor, Dr. Shah": the slot's new value.
  if (group.lemma === 'have' && !group.passive && !group.negative && subjects.length === 1) {
    const k = group.end;
    const head = toks[k + 2];
    if (['a', 'an'].includes(toks[k]?.normal ?? '') && ADJECTIVES_OF_NEW.has(toks[k + 1]?.normal ?? '') && head && !mentionAt.has(k + 2) && /[,:]/.test(head.post)) {
      let at = k + 3;
      while (toks[at] && (toks[at].tags.has('Honorific') || HONORIFICS.has(toks[at].normal))) at++;
      const value = mentionAt.get(at);
      const noun = singularNoun(head.normal);
      const phrase: NounPhrase = { holder: subjects[0], head: k + 2, noun, fresh: true, former: false, target: null, prep: null, role: null, roleToken: null, start: k, end: k + 2 };
      if (value && SLOT_NOUNS[noun]) return newValue(phrase, subjects[0], value, null);
    }
  }

  // "Isla's last day at NatWest was Friday": her time there ended.
  if (group.copula && !group.negative) {
    const phrase = phraseEndingAt(toks, before, mentionAt, mentionEndingAt, base);
    if (phrase?.noun === 'day' && phrase.holder && phrase.target && phrase.prep === 'at' && phrase.target.type !== 'person' && inside(phrase)) {
      return [{ holder: phrase.holder, target: phrase.target, relation: 'left', ended: false, noun: 'day' }];
    }
  }

  // "Max's new address is in Hamburg", "The new owner of the Blue Heron is Sam".
  if (group.copula && !group.negative) {
    let k = after;
    const prep = ['in', 'at', 'on', 'with'].includes(toks[k]?.normal) ? toks[k++].normal : null;
    while (toks[k] && (toks[k].tags.has('Honorific') || HONORIFICS.has(toks[k].normal))) k++;
    const value = mentionAt.get(k);
    if (value && !/[,;:]/.test(toks[before]?.post ?? '')) {
      const phrase = phraseEndingAt(toks, before, mentionAt, mentionEndingAt, base);
      if (phrase?.holder && !phrase.target && !phrase.role && inside(phrase)) return newValue(phrase, phrase.holder, value, prep);
      if (phrase && !phrase.holder && phrase.target && phrase.prep === 'of' && !prep && inside(phrase)) return newHolder(phrase, phrase.target, value);
    }
  }
  return [];
}

function skipAdverbs(toks: Token[], k: number): number {
  while (k < toks.length && (isAdverb(toks[k]) || toks[k].normal === 'now')) k++;
  return k;
}

/** "her engagement to Noah", "Greta's contract", "his membership of the Alpine Club" after a verb. */
function objectPhrase(
  toks: Token[],
  k: number,
  mentionAt: Map<number, Mention>,
  mentionEndingAt: Map<number, Mention>,
  base: number,
  subjects: Mention[],
): NounPhrase | null {
  let holder: Mention;
  let partner: Mention | null = null;
  const named = mentionAt.get(k);
  if (named && isPossessive(toks[named.end - base - 1])) {
    holder = named;
    k = named.end - base;
  } else if (isPronounPossessive(toks[k]) && subjects.length === 1) {
    holder = subjects[0];
    k++;
  } else if (toks[k]?.normal === 'their' && subjects.length === 2) {
    [holder, partner] = subjects;
    k++;
  } else return null;
  // "cancelled his Mensa membership", "their Ajax contract": the name before the noun is its object.
  const qualifier = mentionAt.get(k);
  // ("his Sierra Club membership": a club, whatever the tagger took it for.)
  const group = qualifier !== undefined && GROUP_HEADS.has(qualifier.name.toLowerCase().split(/\s+/).pop() ?? '');
  if (qualifier && (qualifier.type !== 'person' || group) && toks[qualifier.end - base] && isStateNoun(singularNoun(toks[qualifier.end - base].normal))) {
    if (group) qualifier.type = 'organization';
    k = qualifier.end - base;
  }
  let head = k;
  while (head + 1 < toks.length && !mentionAt.has(head + 1) && (toks[head].tags.has('Adjective') || ADJECTIVES_OF_FORMER.has(toks[head].normal)) && toks[head + 1].tags.has('Noun')) head++;
  let last = head;
  if (toks[head + 1]?.normal === 'as' && toks[head + 2] && OFFICE_ROLES.has(singularNoun(toks[head + 2].normal))) last = head + 2;
  const prep = toks[last + 1];
  const determiner = toks[last + 2]?.tags.has('Determiner') ? 1 : 0;
  const after = prep && STATE_PREPOSITIONS.has(prep.normal) ? mentionAt.get(last + 2 + determiner) ?? null : null;
  const target = after ?? (qualifier && k === qualifier.end - base ? qualifier : null);
  const phrase = phraseFromHead(toks, last, target, after ? prep.normal : target ? 'of' : null, mentionAt, mentionEndingAt, base);
  return phrase ? { ...phrase, holder, partner } : null;
}

function endedState(phrase: NounPhrase, target: Mention | null): NounFact[] {
  const holder = phrase.holder!;
  const noun = phrase.noun;
  if (phrase.role) {
    if (target) return [{ holder, target, relation: `${phrase.role.replace(/-/g, '_')}_of`, ended: true, noun }];
    const token = phrase.roleToken!;
    const concept: Mention = { start: token.index, end: token.index + 1, name: token.text, type: 'concept', sentence: token.sentence, common: true };
    return [{ holder, target: concept, relation: 'has_role', ended: true, concept, noun }];
  }
  const relation = STATE_NOUNS[phrase.noun];
  // "Sam and Jo's marriage is over": the couple's own.
  if (!target && phrase.partner && relation && PERSON_VALUED.has(relation)) target = phrase.partner;
  if (!target || target === holder) return [];
  if (relation) {
    if (PERSON_VALUED.has(relation) !== (target.type === 'person')) return [];
    return [{ holder, target, relation, ended: true, noun }];
  }
  // "his job in Berlin ended" says where the job was, not that he left Berlin.
  if (TENURE_NOUNS.has(phrase.noun) && target.type !== 'person' && !(target.type === 'location' && phrase.prep === 'in')) {
    return [{ holder, target, relation: 'left', ended: false, noun }];
  }
  return [];
}

/** "Max's new address is in Hamburg": the possessor's slot has the value after the copula. */
function newValue(phrase: NounPhrase, holder: Mention, value: Mention, prep: string | null): NounFact[] {
  const noun = phrase.noun;
  if (noun === 'owner') {
    if (value.type !== 'person' && value.type !== 'organization') return [];
    return [{ holder: value, target: holder, relation: phrase.fresh ? 'acquired' : 'owns', ended: phrase.former, noun }];
  }
  const relation = SLOT_NOUNS[phrase.noun];
  if (!relation || holder.type === 'location' || value === holder) return [];
  // ("Cleo's boyfriend is Ravi": a name no tagger typed is someone where the slot holds a person.)
  const someone = value.type === 'person' || (value.type === 'concept' && !value.common);
  if (PERSON_VALUED.has(relation) ? !someone : value.type === 'person') return [];
  if (PLACE_VALUED.has(relation) ? value.type === 'person' || value.type === 'organization' : value.type === 'location') return [];
  // "Sofia's job is in Madrid" says where the job is.
  if (relation === 'works_at' && prep !== null && prep !== 'at' && prep !== 'with') return [];
  if (holder.type === 'organization' && relation !== 'works_at') return [];
  return [{ holder, target: value, relation, ended: phrase.former, noun }];
}

/** "The new owner of the Blue Heron is Sam", "The new mayor of Lyon is Claire". */
function newHolder(phrase: NounPhrase, thing: Mention, value: Mention): NounFact[] {
  const noun = phrase.noun;
  if (value.type === 'location' || value === thing) return [];
  if (noun === 'owner') return [{ holder: value, target: thing, relation: phrase.fresh ? 'acquired' : 'owns', ended: phrase.former, noun }];
  if (OFFICE_ROLES.has(phrase.noun) && value.type === 'person') {
    if (thing.type === 'concept' && !thing.common) thing.type = 'organization';
    return [{ holder: value, target: thing, relation: `${noun.replace(/-/g, '_')}_of`, ended: phrase.former, noun }];
  }
  return [];
}
