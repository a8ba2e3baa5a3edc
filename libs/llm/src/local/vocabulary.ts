import type { Mention } from './mentions';

/**
 * One relation vocabulary for the many ways English says the same fact, so that a later text's
 * fact meets the earlier one in the store (temporal supersession compares relation names, not
 * words): "is a nurse at", "works as an engineer at", "works for", "is employed at", "has been
 * at" are all `works_at`; "is a student at", "attends" (a school), "is enrolled at" are
 * `studies_at`; "is dating", "is seeing", "is going out with", "is X's girlfriend" are `dates`;
 * "docked in", "hangs in", "is kept at", "on display in" are `located_in`. Changes have their
 * own names: `sold`, `divorced`, `broke_up_with`, `fired_from`, `moved_to` (temporal-rules.ts in
 * libs/ingest says what each one ends).
 */

/** Roles an organization gives one person at a time, or a few: "the CEO of Acme" → `ceo_of`. */
export const OFFICE_ROLES: ReadonlySet<string> = new Set(
  (
    'ceo cto cfo coo cio president vice-president chairman chairwoman chair director head manager principal mayor ' +
    'captain coach editor dean governor treasurer secretary chancellor founder cofounder co-founder'
  ).split(/\s+/),
);

/** Nouns of a person's relation to another person: "Jorge is Maria's husband" → `married_to`. */
const PERSONAL_NOUNS: Readonly<Record<string, string>> = {
  husband: 'married_to',
  wife: 'married_to',
  spouse: 'married_to',
  girlfriend: 'dates',
  boyfriend: 'dates',
  partner: 'dates',
  fiance: 'engaged_to',
  fiancee: 'engaged_to',
  'fiancé': 'engaged_to',
  'fiancée': 'engaged_to',
  friend: 'friends_with',
  relationship: 'dates',
};

/** Nouns after "is a … at/of" that name what the fact is, other than a job. */
const COPULA_NOUNS: Readonly<Record<string, string>> = {
  student: 'studies_at',
  pupil: 'studies_at',
  undergraduate: 'studies_at',
  postgraduate: 'studies_at',
  volunteer: 'volunteers_at',
  guest: 'stays_at',
  member: 'member_of',
  owner: 'owns',
  resident: 'lives_in',
  tenant: 'lives_in',
};

/** Nouns of a job: "took a job at", "quit her job at", "started a new position with". */
export const JOB_NOUNS: ReadonlySet<string> = new Set('job position post role internship apprenticeship placement career membership'.split(' '));
const JOB_TAKING = new Set(['take', 'get', 'start', 'accept', 'land', 'find', 'begin', 'secure', 'have', 'hold']);
const JOB_LEAVING = new Set(['quit', 'leave', 'lose', 'resign', 'end', 'give', 'cancel', 'terminate', 'complete', 'finish']);
/** "completed her training at", "finished her PhD at": the studies are over. */
const STUDY_NOUNS = new Set('training studies study degree phd doctorate course masters programme program education'.split(' '));
const FINISHING = new Set(['complete', 'finish', 'end', 'conclude']);
/** "Acme's headquarters", "has its head office in". */
export const HEADQUARTERS_NOUNS: ReadonlySet<string> = new Set(['headquarters', 'headquarter', 'hq', 'office', 'base']);

/** The last word of a group's name: "the Hillside Chess Club", "the Labour Party". */
const GROUP_HEADS = new Set(
  'club society party union band choir orchestra philharmonic ensemble committee association league guild council federation circle lodge group'.split(' '),
);
const SCHOOL_HEADS = new Set('school college university academy elementary kindergarten institute polytechnic seminary'.split(' '));
const POSITION_VERBS = new Set(
  'hang sit stand lie dock moor berth park house keep store display exhibit station locate situate show'.split(' '),
);
/** Verbs that move a thing (or a company) from one place to another. */
const MOVING_VERBS = new Set(['move', 'relocate', 'transfer', 'take', 'bring', 'send', 'ship', 'sail', 'tow']);
/** Verbs of an employer ending a job. */
const DISMISSING_VERBS: Readonly<Record<string, string>> = {
  fire: 'fired_from',
  sack: 'fired_from',
  dismiss: 'fired_from',
  'lay off': 'laid_off_from',
  'let go': 'laid_off_from',
};
/** Verbs of a couple parting; said of two people ("Kate and Josh broke up"). */
export const PARTING_VERBS: Readonly<Record<string, string>> = {
  divorce: 'divorced',
  separate: 'broke_up_with',
  split: 'broke_up_with',
  'split up': 'broke_up_with',
  'break up': 'broke_up_with',
  break: 'broke_up_with',
  dump: 'broke_up_with',
};

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
  source: Mention;
  target: Mention;
}

export interface Predicate {
  relation: string;
  /** The fact runs from the object to the subject ("belongs to Olivia" → Olivia `owns` it). */
  reversed?: boolean;
}

const lastWord = (name: string) => name.toLowerCase().split(/\s+/).pop() ?? '';
const isPerson = (m: Mention) => m.type === 'person';
const isPlace = (m: Mention) => m.type === 'location';
const isGroup = (m: Mention) => GROUP_HEADS.has(lastWord(m.name));
const isSchool = (m: Mention) => SCHOOL_HEADS.has(lastWord(m.name));

/** The relation in the common vocabulary, or null to keep none. */
export function canonicalPredicate(p: PredicateInput): Predicate {
  const same = { relation: p.relation };
  const phrasal = p.particle ? `${p.lemma} ${p.particle}` : p.lemma;

  // "Acme's headquarters is in Boston", "Apollo Bank has its headquarters in Zurich".
  if (p.noun === 'headquarters' || p.noun === 'headquarter' || p.noun === 'hq' || (p.noun === 'office' && p.lemma === 'have')) {
    if (p.relation === 'located_in' || p.lemma === 'have' || POSITION_VERBS.has(p.lemma) || (p.copula && p.prep === 'in')) {
      if (p.prep === 'in' || p.prep === 'at') return { relation: 'headquartered_in' };
    }
  }
  if (p.copula) {
    const noun = p.noun;
    if (noun && p.possessed && PERSONAL_NOUNS[noun]) return { relation: PERSONAL_NOUNS[noun] };
    if (noun && p.prep === 'with' && PERSONAL_NOUNS[noun]) return { relation: PERSONAL_NOUNS[noun] };
    if (noun && (noun === 'display' || noun === 'exhibit' || noun === 'show' || noun === 'view') && (p.prep === 'in' || p.prep === 'at')) {
      return { relation: p.now ? 'moved_to' : 'located_in' };
    }
    if (noun && p.prep && ['of', 'at', 'for', 'with', 'in'].includes(p.prep)) {
      if (OFFICE_ROLES.has(noun) && p.prep !== 'with') return { relation: `${noun.replace(/-/g, '_')}_of` };
      if (noun === 'patient') return { relation: p.prep === 'of' ? 'patient_of' : 'patient_at' };
      if (COPULA_NOUNS[noun]) return { relation: COPULA_NOUNS[noun] };
      // "a nurse at St. Mary's", "an accountant with KPMG", "a pilot for Lufthansa": a job.
      if (p.prep !== 'of' && p.prep !== 'in' && !isPerson(p.target) && !isPlace(p.target)) return { relation: 'works_at' };
    }
    // "Ethan is now at Stripe": a person at an organization (or a name that is no place) works there.
    if (p.relation === 'located_in' && p.prep === 'at' && isPerson(p.source) && !isPerson(p.target) && !isPlace(p.target)) return { relation: 'works_at' };
    if (p.relation === 'located_in' && p.now) return { relation: 'moved_to' };
    return same;
  }

  // A passive: the participle names the fact.
  if (p.passive && !p.relation.endsWith('_by')) {
    if (POSITION_VERBS.has(p.lemma) && p.prep && ['in', 'at', 'on', 'inside'].includes(p.prep)) {
      return { relation: p.now ? 'moved_to' : 'located_in' };
    }
    if (p.lemma === 'employ' && p.prep !== 'by') return { relation: 'works_at' };
    if (p.lemma === 'enrol' || p.lemma === 'enroll') return { relation: 'studies_at' };
    if (MOVING_VERBS.has(p.lemma) && (p.prep === 'to' || p.prep === 'in') && !isPerson(p.source)) return { relation: 'moved_to' };
    if (p.lemma === 'trade' && p.prep === 'to') return { relation: 'traded_to' };
    // "Bella Pizza was sold to a new owner, Tony Marino": Tony Marino bought it.
    if (p.lemma === 'sell' && p.prep === 'to' && !isPlace(p.target) && p.source.type !== 'person') {
      return { relation: 'bought', reversed: true };
    }
    if (PARTING_VERBS[p.lemma] && isPerson(p.target) && (p.prep === 'from' || p.prep === 'with')) return { relation: PARTING_VERBS[p.lemma] };
    if (DISMISSING_VERBS[phrasal] && (p.prep === 'from' || p.prep === 'by')) return { relation: DISMISSING_VERBS[phrasal] };
    if (DISMISSING_VERBS[p.lemma] && (p.prep === 'from' || p.prep === 'by')) return { relation: DISMISSING_VERBS[p.lemma] };
    return same;
  }

  const noun = p.noun;
  if (noun && JOB_NOUNS.has(noun) && p.prep && ['at', 'with', 'in', 'for', 'of'].includes(p.prep) && !isPerson(p.target)) {
    if (JOB_LEAVING.has(p.lemma)) return { relation: 'left' };
    if (JOB_TAKING.has(p.lemma) && p.prep !== 'of') return { relation: p.lemma === 'have' || p.lemma === 'hold' ? 'works_at' : 'joined' };
  }
  if (noun && STUDY_NOUNS.has(noun) && FINISHING.has(p.lemma) && p.prep && ['at', 'in', 'from'].includes(p.prep)) return { relation: 'graduated_from' };
  switch (p.lemma) {
    case 'work':
      if (p.prep && ['at', 'for', 'with'].includes(p.prep) && !isPerson(p.target) && !isPlace(p.target)) return { relation: 'works_at' };
      if (p.prep === 'in' && p.target.type === 'organization') return { relation: 'works_at' };
      return same;
    case 'live':
    case 'reside':
      if (p.prep && ['in', 'on', 'at'].includes(p.prep)) return { relation: 'lives_in' };
      return same;
    case 'stay':
      if (p.prep === 'at' && !isPerson(p.target)) return { relation: 'stays_at' };
      return same;
    case 'attend':
      if (!p.prep && isSchool(p.target)) return { relation: 'studies_at' };
      return same;
    case 'study':
      if (p.prep === 'at' || (p.prep === 'in' && !isPlace(p.target))) return { relation: 'studies_at' };
      return same;
    case 'date':
      if (!p.prep && isPerson(p.target)) return { relation: 'dates' };
      return same;
    case 'see':
      if (!p.prep && p.gerund && isPerson(p.target)) return { relation: 'dates' };
      return same;
    case 'go':
      if (p.particle === 'out' && p.prep === 'with' && isPerson(p.target)) return { relation: 'dates' };
      return same;
    case 'belong':
      if (p.prep !== 'to') return same;
      if (isPerson(p.source) && !isPerson(p.target)) return { relation: 'member_of' };
      if (!isPerson(p.source) && isPerson(p.target)) return { relation: 'owns', reversed: true };
      return same;
    case 'play':
    case 'sing':
    case 'perform':
      if (p.prep === 'in' && (isGroup(p.target) || (!isPlace(p.target) && !isPerson(p.target)))) return { relation: 'member_of' };
      return same;
    case 'sign':
      if (p.prep === 'for' || p.prep === 'with') return { relation: `signed_${p.prep}` };
      return same;
    case 'chair':
    case 'captain':
      if (!p.prep && !isPerson(p.target)) return { relation: `${p.lemma}_of` };
      return same;
    case 'join':
      if (!p.prep && isGroup(p.target)) return { relation: 'member_of' };
      return same;
    case 'move':
      if (p.particle === 'away' && p.prep === 'from') return { relation: 'moved_away_from' };
      if (p.particle === 'out' && p.prep === 'of') return { relation: 'moved_out_of' };
      if (p.prep === 'to' || (p.prep === 'in' && p.particle === 'in')) {
        // "Tom moved to Mercy Hospital": a person moving to an organization changes jobs.
        if (isPerson(p.source) && p.target.type === 'organization' && !isGroup(p.target)) return { relation: 'joined' };
        return { relation: 'moved_to' };
      }
      return same;
    case 'transfer':
      if (p.prep === 'to' && !isPerson(p.source)) return { relation: 'moved_to' };
      return same;
    case 'leave':
      if (p.prep === 'for') return { relation: isPlace(p.target) ? 'moved_to' : 'joined' };
      return same;
    case 'sell':
      if (!p.past) return same;
      if (!p.prep) return { relation: 'sold' };
      return same;
    case 'trade':
      if (p.particle === 'in' && !p.prep) return { relation: 'sold' };
      if (p.particle === 'in' && p.prep === 'for') return { relation: 'bought' };
      return same;
    case 'give':
      if (p.particle === 'away' || (!p.prep && p.past && !isPerson(p.target))) return { relation: 'gave_away' };
      return same;
    case 'check':
      if (p.particle === 'out' && (p.prep === 'of' || p.prep === 'from')) return { relation: 'checked_out_of' };
      return same;
    case 'drop':
      if (p.particle === 'out' && p.prep === 'of') return { relation: 'dropped_out_of' };
      return same;
  }
  if (PARTING_VERBS[phrasal] && isPerson(p.target)) return { relation: PARTING_VERBS[phrasal] };
  if (PARTING_VERBS[p.lemma] && isPerson(p.target) && (!p.prep || p.prep === 'with' || p.prep === 'from')) return { relation: PARTING_VERBS[p.lemma] };
  return same;
}

/** "Kate and Josh broke up", "Anna and Ben divorced": the fact between the subjects, if the verb says one. */
export function reciprocalRelation(lemma: string, particle: string | null, copulaWord: string | null): string | null {
  const phrasal = particle ? `${lemma} ${particle}` : lemma;
  if (PARTING_VERBS[phrasal]) return PARTING_VERBS[phrasal];
  if (copulaWord === 'divorced') return 'divorced';
  if (copulaWord && PERSONAL_NOUNS[copulaWord]) return PERSONAL_NOUNS[copulaWord];
  if (lemma === 'marry') return 'married_to';
  if (lemma === 'engage') return 'engaged_to';
  return null;
}

/** Employer verbs turned around: "The Tigers fired Sundar" → Sundar `fired_from` the Tigers. */
export function dismissal(lemma: string, particle: string | null): string | null {
  const phrasal = particle ? `${lemma} ${particle}` : lemma;
  return DISMISSING_VERBS[phrasal] ?? (particle === null ? DISMISSING_VERBS[lemma] ?? null : null);
}
