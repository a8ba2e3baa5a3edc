import type { Mention } from './mentions';
import {
  BODY_NOUNS,
  COPULA_NOUNS,
  DISMISSAL_NOUNS,
  DISMISSING_VERBS,
  FINISHING,
  GIVING_NOTICE,
  GROUP_HEADS,
  HEADQUARTERS_NOUNS,
  HOME_NOUNS,
  HIRING_VERBS,
  HOSPITAL_VERBS,
  JOB_LEAVING,
  JOB_NOUNS,
  JOB_TAKING,
  MOVING_VERBS,
  MUSICIAN_NOUNS,
  NOTICE_NOUNS,
  NOT_JOBS,
  OFFICE_ROLES,
  OFFICES,
  OWNABLE_NOUNS,
  OWNED_NOUNS,
  PARTING_VERBS,
  PERSONAL_NOUNS,
  PHYSICIAN_TITLES,
  POSITION_VERBS,
  SCHOOL_HEADS,
  SPORT_VERBS,
  STAFF_NOUNS,
  STANDING_VERBS,
  STUDYING,
  STUDY_NOUNS,
  SWITCHING_VERBS,
} from './vocabulary-words';

export { DISMISSAL_NOUNS, OFFICES, OFFICE_ROLES, PERSONAL_NOUNS, JOB_NOUNS, STUDY_NOUNS, BODY_NOUNS, HEADQUARTERS_NOUNS, HOME_NOUNS, OWNABLE_NOUNS, PARTING_VERBS } from './vocabulary-words';

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

const lastWord = (name: string) => name.toLowerCase().split(/\s+/).pop() ?? '';
const isPerson = (m: Mention) => m.type === 'person';
const isPlace = (m: Mention) => m.type === 'location';
/** A person, or a name no tagger typed ("Leo", "Holly"): someone, where the verb takes people. */
export const isSomeone = (m: Mention) => isPerson(m) || (m.type === 'concept' && !m.common);
const isGroup = (m: Mention) => GROUP_HEADS.has(lastWord(m.name));
const isSchool = (m: Mention) => SCHOOL_HEADS.has(lastWord(m.name));
const isPositionParticiple = (word: string) => [word.slice(0, -2), word.slice(0, -1)].some((stem) => POSITION_VERBS.has(stem));
/** "Greenfield School", "the Hale Museum": a place the tagger found that is an institution people work at. */
const INSTITUTION_HEADS = new Set(
  'museum gallery library hotel bank church theatre theater zoo airport station restaurant cafe bakery shop store factory studio clinic hospital infirmary hospice surgery centre center'.split(' '),
);
const isWorkplace = (m: Mention) => isSchool(m) || INSTITUTION_HEADS.has(lastWord(m.name));
/** A place no one works at as at an employer ("a nurse in Leeds"). */
const isPlainPlace = (m: Mention) => isPlace(m) && !isWorkplace(m);
/** A part of an organization one runs as a job ("runs the IT department at Barclays"; not "ran a workshop at Lloyds"). */
const UNIT_NOUNS = new Set(['department', 'team', 'division', 'unit', 'office', 'branch', 'plant', 'factory', 'site', 'subsidiary', 'lab', 'laboratory', 'desk', 'group', 'operation', 'store', 'shop', 'kitchen', 'ward', 'clinic', 'section', 'practice']);
/** The words that open a second object after a name ("gave the Gala Cinema a new screen"). */
const RECIPIENT_NEXT = /^(?:a|an|the|some|his|her|their|its|our|my|\d+|one|two|three|four|five)\b/;
/** What one ends with a partner ("ended things with Leo"). */
const ENDED_BONDS = new Set(['thing', 'relationship', 'romance', 'affair', 'engagement', 'marriage']);
/** The office named by the verb of holding it ("directs" → director). */
const ROLE_OF_VERB: Readonly<Record<string, string>> = { direct: 'director', manage: 'manager', edit: 'editor', govern: 'governor' };
const STAKE_NOUNS = new Set(['stake', 'share', 'shareholding', 'holding', 'interest']);
/** A site of an organization, named after the place it is in ("the Pune office"). */
const BRANCH_NOUNS = new Set(['office', 'offices', 'branch', 'site', 'plant', 'campus', 'store', 'depot', 'factory', 'headquarters', 'hq']);
/** Owning a home somewhere, buying and selling one. */
const HOME_OWNING: Readonly<Record<string, string>> = { own: 'owns_home_in', buy: 'bought_home_in', purchase: 'bought_home_in', sell: 'sold_home_in' };
/** Verbs of settling whose place "there" gave, and the relation the preposition would have given. */
const PLACE_WITHOUT_PREPOSITION: Readonly<Record<string, string>> = { move: 'moved_to', relocate: 'relocated_to', settle: 'settled_in', live: 'lives_in', emigrate: 'emigrated_to' };
/** A time spent somewhere ("his time at", "her spell at"). */
const PERIOD_NOUNS = new Set(['time', 'spell', 'stint', 'career', 'tenure', 'term']);
/** Nouns of a move that carry its "from" and "to" whatever light verb they follow. */
const MOVE_NOUNS = new Set(['transfer', 'move', 'switch', 'relocation']);
/** "is in hospital at St. George's", "is in rehab at the Priory", "is in prison at Belmarsh". */
const CONFINING_NOUNS: Readonly<Record<string, string>> = { hospital: 'patient_at', rehab: 'patient_at', prison: 'held_at', jail: 'held_at', gaol: 'held_at' };
const isHospital = (m: Mention) => ['hospital', 'clinic', 'infirmary', 'hospice', 'sanatorium'].includes(lastWord(m.name));

/** "the Abbott family": a name before "family" is a household, people. */
const isFamily = (p: PredicateInput) => /^family\b/.test(p.next ?? '') && !p.target.common;

/** The relation in the common vocabulary, or null to keep none. */
export function canonicalPredicate(p: PredicateInput): Predicate {
  // "completed his transfer from Dinamo Zagreb to Ajax", "made the move to Globex": the noun is the move.
  if (p.noun !== null && MOVE_NOUNS.has(p.noun) && (p.prep === 'from' || p.prep === 'to') && !p.copula && !p.passive && p.lemma !== p.noun) {
    const lemma = p.noun === 'transfer' ? 'transfer' : 'move';
    return canonicalPredicate({ ...p, lemma, particle: null, noun: null, relation: p.prep === 'from' ? 'moved_from' : `${lemma === 'transfer' ? 'transferred' : 'moved'}_to` });
  }
  const same = { relation: p.relation };
  const phrasal = p.particle ? `${p.lemma} ${p.particle}` : p.lemma;

  // "Acme's headquarters is in Boston", "Apollo Bank has its headquarters in Zurich".
  if (p.noun === 'headquarters' || p.noun === 'headquarter' || p.noun === 'hq' || (p.noun === 'office' && p.lemma === 'have')) {
    if (p.relation === 'located_in' || p.lemma === 'have' || POSITION_VERBS.has(p.lemma) || (p.copula && p.prep === 'in')) {
      if (p.prep === 'in' || p.prep === 'at') return { relation: 'headquartered_in' };
    }
  }
  // "moved there", "lived there": the place "there" stands for (place-pro-forms.ts), named with no preposition.
  const settledWithout = !p.prep && !p.particle && isPlace(p.target) ? PLACE_WITHOUT_PREPOSITION[p.lemma] : undefined;
  if (settledWithout) return { relation: settledWithout };
  if (p.copula) {
    // "The Rosetta Stone is at the British Museum": a thing at an organization is kept there (a person works there).
    if (p.relation === 'works_at' && p.prep === 'at' && p.noun === null && p.sourceArticle && !isPerson(p.source)) return { relation: p.now ? 'moved_to' : 'located_in' };
    const noun = p.noun;
    if (noun && p.possessed && PERSONAL_NOUNS[noun]) return { relation: PERSONAL_NOUNS[noun] };
    if (noun && p.prep === 'with' && PERSONAL_NOUNS[noun]) return { relation: PERSONAL_NOUNS[noun] };
    if (noun && ['display', 'exhibit', 'show', 'view', 'storage', 'dock'].includes(noun) && (p.prep === 'in' || p.prep === 'at')) {
      return { relation: p.now ? 'moved_to' : 'located_in' };
    }
    // "is on loan to the Prado": it is there now.
    if (noun === 'loan' && (p.prep === 'to' || p.prep === 'at') && !isPerson(p.source) && !isPerson(p.target)) return { relation: 'moved_to' };
    // "The Blue Star is berthed at Dover" (the participle read as an adjective).
    if (noun && p.prep && ['in', 'at', 'on', 'inside'].includes(p.prep) && /ed$/.test(noun) && isPositionParticiple(noun) && !isPerson(p.source)) {
      return { relation: p.now ? 'moved_to' : 'located_in' };
    }
    if (noun && CONFINING_NOUNS[noun] && p.prep && ['at', 'in'].includes(p.prep) && !isPerson(p.target) && !isPlainPlace(p.target)) return { relation: CONFINING_NOUNS[noun] };
    if (noun && p.prep && ['of', 'at', 'for', 'with', 'in', 'on'].includes(p.prep)) {
      // "a manager at Infosys", "an editor at the Guardian": one of several, a job.
      if (OFFICE_ROLES.has(noun) && p.indefinite && ['at', 'with', 'for'].includes(p.prep) && !isPerson(p.target) && !isPlainPlace(p.target)) return { relation: 'works_at' };
      if (OFFICE_ROLES.has(noun) && p.prep !== 'with') return { relation: `${noun.replace(/-/g, '_')}_of` };
      if (noun === 'patient') return { relation: p.prep === 'of' ? 'patient_of' : 'patient_at' };
      // "Kim is the new owner of the Sea Swift": she acquired it.
      if (noun === 'owner' && p.fresh) return { relation: 'acquired' };
      if (COPULA_NOUNS[noun]) return { relation: COPULA_NOUNS[noun] };
      if (OWNED_NOUNS.has(noun) && p.prep === 'of' && !isPerson(p.target) && !isPlace(p.target)) return { relation: 'owns', reversed: true };
      // "the Gulls' drummer", "the guitarist of Blur", "plays bass with the Lanterns": a band's member.
      if (MUSICIAN_NOUNS.has(noun) && p.prep !== null && ['of', 'in', 'with', 'for'].includes(p.prep) && !isPerson(p.target) && !isPlace(p.target)) return { relation: 'member_of' };
      // "the drummer in The Wolves", "a dancer in the Royal Ballet": one of a group.
      if (p.prep === 'in' && !isPerson(p.target) && !isPlace(p.target) && !isPlace(p.source) && p.source.type !== 'organization') {
        // ("is in a book club called Page Turners": the group's noun before the name.)
        return { relation: p.target.type === 'organization' && !isGroup(p.target) && !GROUP_HEADS.has(noun) ? 'works_at' : 'member_of' };
      }
      // "is in the choir at St Paul's": one of the group there.
      if (GROUP_HEADS.has(noun) && p.prep === 'at' && isSomeone(p.source) && !p.sourceArticle && !isPerson(p.target)) return { relation: 'member_of' };
      // "is on the board of Oxfam", "is part of the Chess Club", "is on the staff of the Guardian".
      // ("is on the Leeds United squad": the name before the noun, typed a place for its first word.)
      if (BODY_NOUNS.has(noun) && (p.prep === 'of' || p.prep === 'at') && !isPerson(p.target) && (!isPlace(p.target) || p.prep === 'at') && (noun !== 'part' || isPerson(p.source))) {
        return { relation: 'member_of' };
      }
      // "WidgetCo is now part of Globex": Globex came to own it.
      if (noun === 'part' && p.prep === 'of' && p.now && !isPerson(p.source) && !isPlace(p.source) && !isPerson(p.target) && !isPlace(p.target)) return { relation: 'acquired', reversed: true };
      if (STAFF_NOUNS.has(noun) && (p.prep === 'of' || p.prep === 'at') && !isPerson(p.target) && !isPlainPlace(p.target)) return { relation: 'works_at' };
      // "Maria is Acme's accountant": a job an organization has.
      if (p.possessed && !PERSONAL_NOUNS[noun] && !isPerson(p.target) && !isPlace(p.target) && !isPlace(p.source) && p.source.type !== 'organization') {
        return { relation: 'works_at' };
      }
      // "is a Green Party councillor": one of a party, whatever one does in it.
      if (lastWord(p.target.name) === 'party' && p.prep === 'at' && isSomeone(p.source)) return { relation: 'member_of' };
      // "a nurse at St. Mary's", "an accountant with KPMG", "a pilot for Lufthansa": a job (not "a regular at the Crown").
      // ("a solicitor at Clifford Chance": a firm named after people, after "at".)
      const firm = p.prep === 'at' && isPerson(p.target) && /\s/.test(p.target.name);
      if (p.prep !== 'of' && p.prep !== 'in' && !NOT_JOBS.has(noun) && (!isPerson(p.target) || firm) && !isPlainPlace(p.target)) return { relation: 'works_at' };
    }
    // "Ethan is now at Stripe": a person at an organization (or a name that is no place) works there.
    // ("Raj has been at Meta since March": a name no tagger typed, not a thing's, is one too.)
    const someone = isPerson(p.source) || (p.source.type === 'concept' && !p.source.common && !p.sourceArticle);
    // ("Raj was at Heathrow on Monday": a visit; "has been at", "is now at" say where one works.)
    if (p.relation === 'located_in' && p.prep === 'at' && someone && !p.visit && !isPerson(p.target) && !isPlainPlace(p.target) && (p.target.type !== 'concept' || !p.target.common)) return { relation: 'works_at' };
    // "Corin is in Pentonville Prison", "is in St. Luke's Hospital": held there, a patient there.
    const confinedIn = CONFINING_NOUNS[lastWord(p.target.name)] ?? (isHospital(p.target) ? 'patient_at' : undefined);
    if (p.relation === 'located_in' && p.prep === 'in' && confinedIn && isSomeone(p.source) && !p.sourceArticle) return { relation: confinedIn };
    // "Kai is in the Chess Club": a person in a group is a member of it ("in the Harriers running
    // club", "in the Leeds Rhinos squad": the group's noun after its name).
    const groupAfter = (p.next ?? '').split(' ').some((w) => GROUP_HEADS.has(w) || (BODY_NOUNS.has(w) && w !== 'part'));
    // ("is in a book club called Page Turners": the group's noun before the name.)
    const groupBefore = p.noun !== null && GROUP_HEADS.has(p.noun);
    if (p.relation === 'located_in' && p.prep === 'in' && !isPlace(p.source) && p.source.type !== 'organization' && !p.sourceArticle && (isGroup(p.target) || groupAfter || groupBefore)) return { relation: 'member_of' };
    if (p.relation === 'located_in' && p.now) return { relation: 'moved_to' };
    return same;
  }

  // "Grace now owns the Silver Arrow", "The Sea Swift is now owned by Kim": she came to own it.
  if (p.lemma === 'own' && (!p.prep || (p.passive && p.prep === 'by')) && p.now && (p.passive || !p.past)) return { relation: 'acquired' };
  // A passive: the participle names the fact.
  if (p.passive && !p.relation.endsWith('_by')) {
    if (POSITION_VERBS.has(p.lemma) && p.prep && ['in', 'at', 'on', 'inside', 'off', 'near'].includes(p.prep)) {
      return { relation: p.now ? 'moved_to' : 'located_in' };
    }
    if (p.lemma === 'employ' && p.prep !== 'by') return { relation: 'works_at' };
    // "Paula is based at Google": where she works (a thing based somewhere is kept there, below).
    if (p.lemma === 'base' && p.prep === 'at' && isSomeone(p.source) && !p.sourceArticle && p.target.type === 'organization') return { relation: 'works_at' };
    // "The Flying Scotsman is based at the Railway Museum": a thing is kept there.
    if (p.lemma === 'base' && p.prep === 'at' && p.sourceArticle && !isPerson(p.source)) return { relation: p.now ? 'moved_to' : 'located_in' };
    // "The Codex is held at the British Library": a thing is kept there (a person held is in custody:
    // "Thabo is being held at Pollsmoor Prison").
    if (p.lemma === 'hold' && p.prep && ['in', 'at'].includes(p.prep) && CONFINING_NOUNS[lastWord(p.target.name)] === 'held_at' && isSomeone(p.source) && !p.sourceArticle) return { relation: 'held_at' };
    if (p.lemma === 'hold' && p.prep && ['in', 'at'].includes(p.prep) && !isPerson(p.source) && !p.source.common) return { relation: p.now ? 'moved_to' : 'located_in' };
    if (p.lemma === 'free' && p.prep === 'from') return { relation: 'released_from' };
    // "was cut from the Hawks", "was dropped from the squad": no longer in it.
    if (['cut', 'drop', 'axe'].includes(p.lemma) && p.prep === 'from' && !isPerson(p.target) && !isPlainPlace(p.target)) return { relation: 'removed_from' };
    // "was kicked out of the club" (the particle read as part of "out of").
    if ((p.lemma === 'kick' || p.lemma === 'throw') && p.prep === 'of' && !isPerson(p.target)) return { relation: 'expelled_from' };
    // "The painting was lent to the Prado", "The marbles were returned to Greece": a thing now there.
    if (['lend', 'loan', 'return'].includes(p.lemma) && p.prep === 'to' && !isPerson(p.source) && p.sourceArticle) return { relation: 'moved_to' };
    // "is being treated at St. Mary's Hospital", "was hospitalised in St. Luke's".
    if (HOSPITAL_VERBS.has(p.lemma) && p.prep && ['at', 'in'].includes(p.prep) && !isPerson(p.target) && (isHospital(p.target) || !isPlace(p.target))) return { relation: 'patient_at' };
    // "was admitted to St. Luke's Hospital" / "to Harvard University".
    if (p.lemma === 'admit' && p.prep === 'to' && isHospital(p.target)) return { relation: 'patient_at' };
    if (p.lemma === 'admit' && p.prep === 'to' && isSchool(p.target)) return { relation: 'studies_at' };
    if (p.lemma === 'enrol' || p.lemma === 'enroll') return { relation: isGroup(p.target) ? 'member_of' : 'studies_at' };
    // "Bo was transferred to the Tigers": someone the tagger left untyped changed clubs (a thing moved).
    if (p.lemma === 'transfer' && p.prep === 'to' && isSomeone(p.source) && !p.sourceArticle && !isPlace(p.target) && !p.target.common) return { relation: 'transferred_to' };
    if (MOVING_VERBS.has(p.lemma) && (p.prep === 'to' || p.prep === 'in') && !isPerson(p.source)) return { relation: 'moved_to' };
    if (p.lemma === 'trade' && p.prep === 'to') return { relation: 'traded_to' };
    // "Bella Pizza was sold to a new owner, Tony Marino": Tony Marino bought it.
    if (p.lemma === 'sell' && p.prep === 'to' && !isPlace(p.target) && p.source.type !== 'person') {
      return { relation: 'bought', reversed: true };
    }
    if (PARTING_VERBS[p.lemma] && isPerson(p.target) && (p.prep === 'from' || p.prep === 'with')) return { relation: PARTING_VERBS[p.lemma] };
    if (DISMISSING_VERBS[phrasal] && (p.prep === 'from' || p.prep === 'by')) return { relation: DISMISSING_VERBS[phrasal] };
    if (DISMISSING_VERBS[p.lemma] && (p.prep === 'from' || p.prep === 'by')) return { relation: DISMISSING_VERBS[p.lemma] };
    // "Kai was sold to PSV", "was loaned to Chelsea": a player's transfer.
    const player = isPerson(p.source) || (p.lemma === 'loan' && p.source.type === 'concept' && !p.source.common && !p.sourceArticle);
    if ((p.lemma === 'sell' || p.lemma === 'loan') && p.prep === 'to' && player && !isPlace(p.target) && !isPerson(p.target)) return { relation: 'transferred_to' };
    // "The Mona Lisa was removed from the Louvre", "was stolen from it", "was taken down from": no longer there.
    if ((p.lemma === 'remove' || p.lemma === 'steal') && p.prep === 'from' && !isPerson(p.target)) return { relation: `${p.lemma === 'remove' ? 'removed' : 'stolen'}_from` };
    if (p.lemma === 'take' && (p.particle === 'down' || p.particle === 'away') && p.prep === 'from' && !isPerson(p.source) && !isPerson(p.target)) return { relation: 'removed_from' };
    return same;
  }

  // "The Night Watch hangs in the Rijksmuseum", "The Aurora is docked in Southampton".
  // ("is anchored off Hobart", "stands near Gateshead": where it is, too.)
  if (STANDING_VERBS.has(p.lemma) && p.prep && ['in', 'at', 'on', 'inside', 'off', 'near'].includes(p.prep) && !isPerson(p.source) && !p.source.common) {
    return { relation: p.now ? 'moved_to' : 'located_in' };
  }
  // "Luna switched to Dr. Kapoor", "Theo now sees Dr. Patel": a physician's patient.
  if (p.title && PHYSICIAN_TITLES.has(p.title) && isPerson(p.target)) {
    if (SWITCHING_VERBS.has(p.lemma) && p.prep === 'to') return { relation: 'patient_of' };
    if (p.lemma === 'see' && !p.prep && (!p.past || p.gerund)) return { relation: 'patient_of' };
  }
  const noun = p.noun;
  // "sits on the board of Oxfam", "serves on the council of", "chairs the board of Helix Bio".
  if (noun && BODY_NOUNS.has(noun) && noun !== 'part' && p.prep === 'of' && !isPerson(p.target) && !isPlace(p.target)) {
    if (p.lemma === 'chair') return { relation: 'chair_of' };
    if (['sit', 'serve', 'join'].includes(p.lemma)) return { relation: 'member_of' };
    if (['leave', 'quit', 'resign', 'step', 'retire', 'stand'].includes(p.lemma)) return { relation: 'left' };
  }
  // "Ana has a yacht called Seabird": a named thing of hers ("had" says it once was).
  if (noun && OWNABLE_NOUNS.has(noun) && p.lemma === 'have' && !p.prep && !p.past && !isPerson(p.target) && !isPlace(p.target)) return { relation: 'owns' };
  // "has a Harley Davidson": a thing of that make (a person or a place takes no article).
  if (p.lemma === 'have' && p.indefinite && !p.prep && !p.past && !isPlace(p.target)) return { relation: 'owns' };
  // "serves on the school board", "sits on the housing committee".
  // ("sits on the Oxfam board": the body's noun after the name.)
  const bodyNext = BODY_NOUNS.has((p.next ?? '').split(' ')[0]);
  if ((p.lemma === 'serve' || p.lemma === 'sit') && p.prep === 'on' && (BODY_NOUNS.has(lastWord(p.target.name)) || bodyNext) && !isPerson(p.target)) return { relation: 'member_of' };
  // "serves in the Royal Navy", "serves with the Marines".
  if (p.lemma === 'serve' && !noun && (p.prep === 'in' || p.prep === 'with') && isGroup(p.target) && isSomeone(p.source)) return { relation: 'member_of' };
  // "has a boyfriend named Ben".
  if (noun && PERSONAL_NOUNS[noun] && (p.lemma === 'have' || p.lemma === 'marry') && !p.prep && isPerson(p.target)) return { relation: PERSONAL_NOUNS[noun] };
  // "The Hale Museum houses the Veldt Collection": the collection is there.
  if (['house', 'exhibit', 'display'].includes(p.lemma) && !p.prep && !isPerson(p.source) && !isPerson(p.target) && !p.target.common) return { relation: 'located_in', reversed: true };
  // "Mercury Labs operates from Cambridge".
  if (p.lemma === 'operate' && (p.prep === 'from' || (p.particle === 'out' && p.prep === 'of')) && !isPerson(p.source) && !isPerson(p.target)) return { relation: 'based_in' };
  if (SPORT_VERBS.has(p.lemma) && p.prep === 'for' && !isPerson(p.target) && !isPlace(p.target)) return { relation: 'plays_for' };
  // "swims with the Otters", "trains with the Leeds Harriers", "dances with the Royal Ballet": one of a club.
  if ((SPORT_VERBS.has(p.lemma) || ['train', 'dance', 'run'].includes(p.lemma)) && p.prep === 'with' && !p.past && !isPerson(p.target) && !p.target.common && (isGroup(p.target) || p.target.type !== 'location' || /\s/.test(p.target.name))) {
    return { relation: 'member_of' };
  }
  // "The Rosetta Stone lives in the British Museum": a thing is kept there.
  if ((p.lemma === 'live' || p.lemma === 'reside') && p.sourceArticle && !isPerson(p.source) && p.prep && ['in', 'at'].includes(p.prep)) return { relation: p.now ? 'moved_to' : 'located_in' };
  // "Ana is recovering at St. Mary's Hospital".
  if (p.lemma === 'recover' && p.prep && ['at', 'in'].includes(p.prep) && isHospital(p.target)) return { relation: 'patient_at' };
  // "took early retirement from Infosys", "filed for divorce from Jo".
  if (noun === 'retirement' && p.prep === 'from' && !isPerson(p.target)) return { relation: 'retired_from' };
  // "took voluntary redundancy from Acme".
  if (noun === 'redundancy' && p.prep === 'from' && !isPerson(p.target)) return { relation: 'laid_off_from' };
  if (noun === 'divorce' && (p.prep === 'from' || p.prep === 'with') && isPerson(p.target)) return { relation: 'divorced' };
  if (noun && NOTICE_NOUNS.has(noun) && GIVING_NOTICE.has(p.lemma) && p.prep && ['at', 'to', 'with'].includes(p.prep) && !isPerson(p.target) && !isPlace(p.target)) {
    return { relation: 'resigned_from' };
  }
  // "accepted an offer from Meta"
  if (noun === 'offer' && p.lemma === 'accept' && p.prep && ['from', 'at', 'with'].includes(p.prep) && !isPerson(p.target) && !isPlace(p.target)) return { relation: 'joined' };
  if (noun && JOB_NOUNS.has(noun) && p.prep && ['at', 'with', 'in', 'for', 'of'].includes(p.prep) && !isPerson(p.target)) {
    // ("packed in her job at the Ritz": the British "pack in" / "jack in" is quitting.)
    if (JOB_LEAVING.has(p.lemma) || (p.particle === 'in' && ['pack', 'jack'].includes(p.lemma))) return { relation: 'left' };
    // "has a membership at the Leeds Gym", "took out a membership of".
    if (noun === 'membership') return JOB_TAKING.has(p.lemma) || p.lemma === 'buy' ? { relation: 'member_of' } : same;
    // "is doing an internship at Spotify": she works there.
    if (p.lemma === 'do' && p.prep !== 'of' && !isPlainPlace(p.target)) return { relation: 'works_at' };
    if (JOB_TAKING.has(p.lemma) && p.prep !== 'of') return { relation: p.lemma === 'have' || p.lemma === 'hold' ? 'works_at' : 'joined' };
  }
  if (noun && STUDY_NOUNS.has(noun) && FINISHING.has(p.lemma) && p.prep && ['at', 'in', 'from'].includes(p.prep)) return { relation: 'graduated_from' };
  // "is doing a PhD at Oxford", "is pursuing a degree at Bonn University".
  if (noun && STUDY_NOUNS.has(noun) && STUDYING.has(p.lemma) && p.prep && ['at', 'in', 'with'].includes(p.prep) && (p.prep === 'at' || !isPlace(p.target)) && !isPerson(p.target)) {
    return { relation: 'studies_at' };
  }
  // "owns a majority stake in Initech", "holds shares in", "bought a stake in": a part of it.
  if (noun && STAKE_NOUNS.has(noun) && p.prep === 'in' && !isPerson(p.target) && !isPlace(p.target)) {
    if (['own', 'hold', 'have'].includes(p.lemma)) return { relation: 'owns' };
    if (['buy', 'acquire', 'take'].includes(p.lemma)) return { relation: 'bought' };
    if (p.lemma === 'sell') return { relation: 'sold' };
  }
  // "The Gospels went on display in Newcastle", "went on loan to the Prado": it is there now.
  if (p.lemma === 'go' && noun && ['display', 'show', 'exhibition', 'view', 'loan'].includes(noun) && p.prep && ['in', 'at', 'to'].includes(p.prep) && !isPerson(p.source) && !isPerson(p.target)) return { relation: 'moved_to' };
  // "is serving a sentence at Wandsworth Prison", "is serving time in Belmarsh".
  if (p.lemma === 'serve' && (noun === 'sentence' || noun === 'time') && p.prep && ['at', 'in'].includes(p.prep) && !isPerson(p.target)) return { relation: 'held_at' };
  // "owns a house in Bath", "sold her flat in Seoul": a home there, owned (not where one lives).
  const homeIn = noun !== null && HOME_NOUNS.has(noun) && p.prep === 'in' && (isPlace(p.target) || (p.target.type === 'concept' && !p.target.common)) && !isPerson(p.target);
  if (homeIn && HOME_OWNING[p.lemma] && (p.lemma !== 'sell' || p.past)) return { relation: HOME_OWNING[p.lemma] };
  // "rents a flat in Edinburgh", "has an apartment in Brooklyn": where one lives (not "a
  // holiday flat", "a second home"; "owns a house in Bath" is above: owned, maybe let).
  if ((p.lemma === 'rent' || p.lemma === 'share' || (p.lemma === 'have' && !p.past && noun !== 'room')) && noun && HOME_NOUNS.has(noun) && p.prep && ['in', 'on', 'at'].includes(p.prep) && (isPlace(p.target) || (p.target.type === 'concept' && !p.target.common))) return { relation: 'lives_in' };
  switch (p.lemma) {
    case 'run':
      // "Victor runs Orion Capital": he leads it (not "runs the marathon").
      if (!p.prep && p.target.type === 'organization') return { relation: 'leads' };
      // "runs the IT department at Barclays", "runs the London office of Infosys": a job there.
      if ((p.prep === 'at' || p.prep === 'of') && p.noun !== null && UNIT_NOUNS.has(p.noun) && !p.past && isPerson(p.source) && !isPerson(p.target) && !isPlainPlace(p.target) && !p.target.common) return { relation: 'works_at' };
      return same;
    case 'work':
      if (p.prep && ['at', 'for', 'with'].includes(p.prep) && !isPerson(p.target) && !isPlainPlace(p.target)) return { relation: 'works_at' };
      // "works at the Leeds branch of HSBC".
      if (p.prep === 'of' && p.noun !== null && UNIT_NOUNS.has(p.noun) && !isPerson(p.target) && !isPlainPlace(p.target)) return { relation: 'works_at' };
      if (p.prep === 'in' && p.target.type === 'organization') return { relation: 'works_at' };
      return same;
    case 'live':
    case 'reside':
      if (p.prep && ['in', 'on', 'at'].includes(p.prep)) return { relation: 'lives_in' };
      return same;
    case 'stay':
      if (p.prep === 'at' && !isPerson(p.target)) return { relation: 'stays_at' };
      return same;
    case 'volunteer':
      // "volunteers with the Red Cross", "for Oxfam": where one volunteers.
      if ((p.prep === 'with' || p.prep === 'for') && !isPerson(p.target) && !isPlainPlace(p.target)) return { relation: 'volunteers_at' };
      return same;
    case 'head':
    case 'lead':
      // "heads the sales team at Atlas": a job there.
      if (p.prep === 'at' && p.noun !== null && UNIT_NOUNS.has(p.noun) && !p.past && !isPerson(p.target) && !isPlainPlace(p.target) && !p.target.common) return { relation: 'works_at' };
      return same;
    case 'attend':
      if (!p.prep && isSchool(p.target)) return { relation: 'studies_at' };
      return same;
    // "Marek drives for DHL", "Ana flies for Lufthansa": the work one does for an employer (not
    // "consults for Meta on the side", "writes for" or "designs for": work for several at once).
    case 'drive':
    case 'report':
    case 'cook':
    case 'fly':
      if (p.prep === 'for' && !p.past && !isPerson(p.target) && !isPlace(p.target) && !p.target.common) return { relation: 'works_at' };
      return same;
    // "Gemma now writes for the FT": "now" says it is where she works (without it, one of several).
    case 'write':
    case 'design':
    case 'consult':
      if (p.prep === 'for' && p.now && !p.past && !isPerson(p.target) && !isPlace(p.target) && !p.target.common) return { relation: 'works_at' };
      return same;
    // "Arjun is interning at Spotify".
    case 'intern':
      if (p.prep && ['at', 'for', 'with'].includes(p.prep) && !isPerson(p.target) && !isPlainPlace(p.target)) return { relation: 'works_at' };
      return same;
    // "Ade now rents in Brixton": where one lives (a thing rented is an object: "rents a car in").
    case 'rent':
      if (p.prep === 'in' && !p.noun && !isPerson(p.target) && p.target.type !== 'organization' && !p.target.common) return { relation: 'lives_in' };
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
    case 'belong':
      if (p.prep !== 'to') return same;
      // "Kofi belongs to the Accra Choir": a member of a group, whoever the tagger took him for
      // ("to a book club called Page Turners": the group's noun before its name).
      if ((isPerson(p.source) || ((isGroup(p.target) || (p.noun !== null && GROUP_HEADS.has(p.noun))) && !p.sourceArticle)) && !isPerson(p.target)) return { relation: 'member_of' };
      // "The Silver Arrow now belongs to Grace": she came to own it ("to the Abbott family": theirs).
      if (!isPerson(p.source) && (isPerson(p.target) || isFamily(p))) return { relation: p.now ? 'acquired' : 'owns', reversed: true };
      return same;
    case 'play':
    case 'sing':
    case 'perform':
      if (p.prep === 'in' && (isGroup(p.target) || (!isPlace(p.target) && !isPerson(p.target)))) return { relation: 'member_of' };
      // "sings with the Leeds Choir" (not "played with Tom").
      if (p.prep === 'with' && isGroup(p.target)) return { relation: 'member_of' };
      return same;
    case 'go':
      // "The Star of Asia has gone to the Prado": a thing that went somewhere is there.
      if (p.prep === 'to' && p.sourceArticle && !isPerson(p.source) && !isPerson(p.target)) return { relation: 'moved_to' };
      // "Anna goes to Westlake School": she is a pupil there ("goes to the Tennis Club": a member).
      if (p.prep === 'to' && !p.past && isSchool(p.target)) return { relation: 'studies_at' };
      if (p.prep === 'to' && !p.past && isGroup(p.target) && isSomeone(p.source)) return { relation: 'member_of' };
      if (p.particle === 'out' && p.prep === 'with' && isPerson(p.target)) return { relation: 'dates' };
      // "Evelyn has gone into a care home in Canterbury": she lives there now.
      if (p.prep === 'in' && p.noun !== null && HOME_NOUNS.has(p.noun) && isSomeone(p.source) && !p.sourceArticle && !isPerson(p.target)) return { relation: 'moved_to' };
      // "Ezra went home from Guy's Hospital": his stay there ended.
      if (p.prep === 'from' && isHospital(p.target)) return { relation: 'discharged_from' };
      // "Aisha went over to Bain": she changed sides, to another employer.
      if (p.particle === 'over' && p.prep === 'to' && !isPerson(p.target) && !isPlace(p.target) && !p.target.common && !p.sourceArticle) return { relation: 'joined' };
      return same;
    case 'sign':
      // "Jana signed on with Globex": a new employer.
      if (p.particle === 'on' && (p.prep === 'with' || p.prep === 'at') && isSomeone(p.source) && !isPerson(p.target) && !isPlace(p.target)) return { relation: 'joined' };
      if (p.prep === 'for' || p.prep === 'with') return { relation: `signed_${p.prep}` };
      return same;
    case 'end':
      // "Tomasz ended up at Munich Re": his next employer.
      if (p.particle === 'up' && p.prep === 'at' && !isPerson(p.target) && !isPlainPlace(p.target) && !p.target.common) return { relation: 'joined' };
      // "Pia ended things with Leo", "ended it with him" (not "ended the meeting with him").
      if (p.prep === 'with' && (p.noun === null || ENDED_BONDS.has(p.noun)) && isSomeone(p.source) && isSomeone(p.target)) return { relation: 'broke_up_with' };
      return same;
    case 'return':
      // "Ivy returned to Paris": where she lives again (a thing returned is moved, above).
      if (p.prep === 'to' && isPlainPlace(p.target) && !p.sourceArticle && p.source.type !== 'organization') return { relation: 'moved_to' };
      return same;
    case 'finish':
      // "Ana finished at Leeds University": her studies there are over; "Fergus finished at
      // Waterstones": his job there (not "finished his shift at").
      if (p.prep === 'at' && isSchool(p.target)) return { relation: 'graduated_from' };
      if (p.prep === 'at' && !p.noun && isSomeone(p.source) && !p.sourceArticle && !isPerson(p.target) && !isPlainPlace(p.target) && !p.target.common) return { relation: 'left' };
      return same;
    case 'get':
      // "got the boot from Tesco", "got the sack from the Mirror": dismissed.
      if (p.noun !== null && DISMISSAL_NOUNS.has(p.noun) && p.prep === 'from' && !isPerson(p.target) && !isPlainPlace(p.target)) return { relation: 'fired_from' };
      // "Lou got out of Belmarsh": free of a prison (or a hospital).
      if (p.particle === 'out' && p.prep === 'of' && !isPerson(p.target) && !isPlainPlace(p.target)) return { relation: isHospital(p.target) ? 'discharged_from' : 'released_from' };
      return same;
    case 'part':
      // "The Hawks parted ways with Jess": a club or an employer let her go.
      if (p.prep === 'with' && isPerson(p.target) && !isPerson(p.source) && !isPlace(p.source)) return { relation: 'fired_from', reversed: true };
      // "Agnieszka finally parted with Seraphina" (her boat): no longer hers.
      if (p.prep === 'with' && p.noun === null && !/^ways\b/.test(p.next ?? '') && isSomeone(p.source) && p.target.type !== 'person' && !isPlace(p.target) && p.target.type !== 'organization') return { relation: 'gave_away' };
      return same;
    // "bringing his time at Llanelli RFC to a close": he left it.
    case 'bring':
      if (p.prep === 'at' && p.noun !== null && PERIOD_NOUNS.has(p.noun) && /^to an?\b/.test(p.next ?? '') && !isPerson(p.target)) return { relation: 'left' };
      return same;
    // "broke off her engagement to Ben": they are no longer engaged.
    case 'break':
      if (p.noun === 'engagement' && p.prep === 'to' && isSomeone(p.target)) return { relation: 'broke_up_with' };
      return same;
    // "Rashid turns out for Bolton Cricket Club": plays for it.
    case 'turn':
      if (p.particle === 'out' && p.prep === 'for' && !isPerson(p.target) && !isPlainPlace(p.target)) return { relation: 'plays_for' };
      return same;
    // "Aoife has stepped away from the Rotunda": she left it.
    case 'step':
      if ((p.particle === 'away' || p.particle === 'back') && p.prep === 'from' && isSomeone(p.source) && !isPerson(p.target) && !isPlainPlace(p.target)) return { relation: 'left' };
      return same;
    // "Luca waits tables at Dishoom": works there.
    case 'wait':
      if (p.noun === 'table' && p.prep === 'at' && !isPerson(p.target) && !isPlainPlace(p.target)) return { relation: 'works_at' };
      return same;
    // "had to rehome Max": a pet given to another home.
    case 'rehome':
      if (!p.prep && !isPlace(p.target)) return { relation: 'gave_away' };
      return same;
    case 'set':
      // "The Sea Swift set sail for Cherbourg".
      if (p.noun === 'sail' && (p.prep === 'for' || p.prep === 'to') && !isPerson(p.source) && !p.source.common) return { relation: 'moved_to' };
      return same;
    case 'sail':
    case 'steam':
      // "The Sea Queen sailed for Calais": a ship is where it sailed to (not "to Dartmouth and back").
      if (/^and back\b/.test(p.next ?? '')) return same;
      if ((p.prep === 'for' || p.prep === 'to') && !isPerson(p.source) && !p.source.common) return { relation: 'moved_to' };
      return same;
    case 'chair':
    case 'captain':
    case 'coach':
      if (!p.prep && !isPerson(p.target)) return { relation: `${p.lemma}_of` };
      return same;
    // "Dr. Ray directs the Salk lab", "Ana manages the Leeds branch": the office its holder is
    // named by (the present only: "directed Titanic", "edited the book" were pieces of work).
    case 'direct':
    case 'manage':
    case 'edit':
    case 'govern':
      if (!p.prep && !p.past && !isPerson(p.target) && !isPlainPlace(p.target)) return { relation: `${ROLE_OF_VERB[p.lemma]}_of` };
      // "manages the IT team at Barclays", "a branch of Barclays": a job there.
      if ((p.prep === 'at' || p.prep === 'of') && p.noun !== null && UNIT_NOUNS.has(p.noun) && !p.past && !isPerson(p.target) && !isPlainPlace(p.target) && !p.target.common) return { relation: 'works_at' };
      return same;
    case 'start':
    case 'begin':
      // "Lily started at Oakwood Secondary": a new school.
      if (p.prep === 'at' && !p.noun && isSchool(p.target) && !isPlace(p.source) && p.source.type !== 'organization' && !p.sourceArticle) return { relation: 'transferred_to' };
      // "Priya has started at Meta": her first day there.
      if (p.prep === 'at' && !p.noun && !isPerson(p.target) && !isPlace(p.target) && !isPlace(p.source) && p.source.type !== 'organization') return { relation: 'joined' };
      return same;
    case 'call':
    case 'make':
      // "made her debut for Crystal Palace Women": she plays for them now.
      if (p.lemma === 'make' && p.noun === 'debut' && p.prep === 'for' && isSomeone(p.source) && !isPerson(p.target)) return { relation: 'plays_for' };
      // "called it quits at IKEA": left it.
      if (p.lemma === 'call' && p.prep === 'at' && (p.noun === 'quit' || p.noun === 'quits') && isSomeone(p.source) && !isPerson(p.target) && !isPlainPlace(p.target)) return { relation: 'left' };
      // "Lars now calls Aarhus home", "Mia has made York her home".
      if (!p.prep && /^(?:(?:his|her|their|my|our) )?home\b/.test(p.next ?? '') && (p.lemma === 'call' || /^(?:his|her|their|my|our) home/.test(p.next ?? '')) && !isPerson(p.target)) {
        return { relation: p.now || p.lemma === 'make' ? 'moved_to' : 'lives_in' };
      }
      return same;
    case 'settle':
      if (p.prep === 'in' || p.prep === 'at') return { relation: 'settled_in' };
      return same;
    case 'lose':
      // "Dana lost Casa Azul (to the bank)": a thing she no longer has.
      if (!p.prep && p.past && p.target.type === 'concept' && !p.target.common) return { relation: 'lost' };
      return same;
    case 'lecture':
      // "Lucia lectures at Bonn University" teaches there (a job: temporal-rules.ts puts teaches_at in employment).
      if (p.prep === 'at' && !isPerson(p.target) && !isPlace(p.target)) return { relation: 'teaches_at' };
      return same;
    case 'join':
      // ("joined a running club called Striders": the group's noun before the name.)
      if (!p.prep && (isGroup(p.target) || (p.noun !== null && GROUP_HEADS.has(p.noun)))) return { relation: 'member_of' };
      return same;
    case 'move':
      if (p.particle === 'away' && p.prep === 'from') return { relation: 'moved_away_from' };
      // "Jana has moved on from Acme": she left it.
      if (p.particle === 'on' && p.prep === 'from' && !isPerson(p.target) && !isPlainPlace(p.target)) return { relation: 'left' };
      // "moved across to Globex", "moved over to Aldi": changed sides, to another employer.
      if ((p.particle === 'across' || p.particle === 'over') && p.prep === 'to' && isSomeone(p.source) && !p.sourceArticle && !isPerson(p.target) && !isPlace(p.target) && !p.target.common) return { relation: 'joined' };
      // "Acme moved to a new head office in York", "moved into his own place in Galway": the move is to the place.
      if (p.prep === 'in' && p.noun && (HEADQUARTERS_NOUNS.has(p.noun) || HOME_NOUNS.has(p.noun) || ['offices', 'place', 'premises', 'building', 'site'].includes(p.noun)) && (isPlace(p.target) || (p.target.type === 'concept' && !p.target.common))) {
        return { relation: 'moved_to' };
      }
      // "Ravi moved from Infosys to TCS": he left the company.
      if (p.prep === 'from' && !isPlace(p.target) && p.target.type === 'organization' && !isGroup(p.target)) return { relation: 'left' };
      if (p.particle === 'out' && p.prep === 'of') return { relation: 'moved_out_of' };
      if (p.prep === 'to' || (p.prep === 'in' && p.particle === 'in')) {
        // "Tom moved to Mercy Hospital": a person moving to an organization changes jobs.
        // "Vic moved to York University": another school, to study or to work there.
        if (isSomeone(p.source) && !p.sourceArticle && isSchool(p.target)) return { relation: 'transferred_to' };
        // ("Flo has moved to Adidas": a name the tagger left untyped, not a thing's, is someone's;
        // "to the Pune office of Infosys": a name before a site's noun says where the site is.)
        const site = BRANCH_NOUNS.has((p.next ?? '').split(' ')[0]);
        if (isSomeone(p.source) && !p.sourceArticle && p.target.type === 'organization' && !isGroup(p.target) && !site) return { relation: 'joined' };
        return { relation: 'moved_to' };
      }
      return same;
    case 'switch':
    case 'change':
      // "Mira switched to York University": another school.
      if (p.prep === 'to' && isSchool(p.target)) return { relation: 'transferred_to' };
      return same;
    case 'transfer':
      // "The museum transferred to Leeds" moved; "Tariq transferred to PSV" changed clubs (or school, or employer).
      if (p.prep === 'to' && !isPerson(p.source) && (isPlace(p.target) || p.source.type !== 'concept' || p.source.common)) return { relation: 'moved_to' };
      if (p.prep === 'to') return { relation: 'transferred_to' };
      return same;
    case 'leave':
      // "left Acme for Globex" joined it; "left Tom for Mark" is seeing Mark.
      if (p.prep === 'for') return { relation: isPlace(p.target) ? 'moved_to' : isPerson(p.target) ? 'dates' : 'joined' };
      // "Lisa left Tom" (not "left Tom a note"): a couple parted.
      if (!p.prep && isPerson(p.source) && isPerson(p.target) && !['a', 'an', 'the', 'his', 'her', 'their', 'some', 'with', 'alone'].includes((p.next ?? '').split(' ')[0])) {
        return { relation: 'broke_up_with' };
      }
      return same;
    // ("auctioned off her Picasso": sold to the highest bidder.)
    case 'sell':
    case 'auction':
      if (!p.past) return same;
      if (!p.prep) return { relation: 'sold' };
      return same;
    case 'trade':
    case 'swap':
    case 'exchange':
      // "traded in her Corolla for a Tesla", "swapped his Fender for a Gibson": one given, the other got.
      // (A car named after a person, "traded in his Ford", is still a thing traded in.)
      if (p.particle === 'in' && !p.prep) return { relation: 'sold' };
      if (p.particle === 'in' && p.prep === 'for') return { relation: 'bought' };
      if (p.past && !p.prep && /^for\b/.test(p.next ?? '') && !isPerson(p.target)) return { relation: 'sold' };
      if (p.past && p.prep === 'for' && !isPerson(p.target) && !p.target.common) return { relation: 'bought' };
      return same;
    case 'give':
    case 'hand':
      // "handed the Wellington Pride captaincy over to Mere": her office there, not the club.
      if (OFFICES[(p.next ?? '').split(' ')[0]] && !p.prep && !isPerson(p.target)) return { relation: 'stepped_down_from' };
      // "Jade gave up the Hallé Choir": she left the group (not a thing given away).
      if (p.lemma === 'give' && p.particle === 'up' && !p.prep && isGroup(p.target)) return { relation: 'left' };
      // "gave the Sea Swift to her son", "handed the café over to Omar": no longer hers.
      // ("gave Globex three chairs": a name before another object is who received it.)
      if (p.particle === 'away' || (!p.prep && p.past && !RECIPIENT_NEXT.test(p.next ?? '') && !isPerson(p.target) && (p.lemma === 'give' || !p.target.common))) return { relation: 'gave_away' };
      return same;
    // "Ken passed the Red Lion on to his son", "handed it down to": no longer his.
    case 'pass':
      if (!p.prep && /^(?:on|down) to\b/.test(p.next ?? '') && !isPerson(p.target) && !isPlace(p.target)) return { relation: 'gave_away' };
      return same;
    // "Ken scrapped his Ford Fiesta".
    case 'scrap':
      if (!p.prep && p.past && !isPerson(p.target)) return { relation: 'gave_away' };
      return same;
    case 'rid':
      // "got rid of her Vespa".
      if (p.prep === 'of' && !isPerson(p.target)) return { relation: 'gave_away' };
      return same;
    case 'divest':
      if (!p.prep && !isPerson(p.target)) return { relation: 'sold' };
      return same;
    case 'spin':
    case 'spun':
      if (p.particle === 'off' && !p.prep && !isPerson(p.target)) return { relation: 'sold' };
      return same;
    case 'take':
      // "Globex took over WidgetCo": it came to own it.
      if (p.particle === 'over' && !p.prep && !isPerson(p.target) && !isPlace(p.target) && !p.target.common) return { relation: 'acquired' };
      return same;
    case 'free':
      if (p.prep === 'from') return { relation: 'released_from' };
      return same;
    case 'escape':
      if (p.prep === 'from' && !isPlace(p.target)) return { relation: 'escaped_from' };
      return same;
    case 'check':
      if (p.particle === 'out' && (p.prep === 'of' || p.prep === 'from')) return { relation: 'checked_out_of' };
      return same;
    case 'walk':
      // "Jana walked out of Acme": she quit (walking out on someone is leaving them).
      if (p.particle === 'out' && p.prep === 'of' && !isPerson(p.target) && !isPlainPlace(p.target) && !p.target.common) return { relation: 'quit' };
      if (p.particle === 'out' && p.prep === 'on' && isPerson(p.target)) return { relation: 'broke_up_with' };
      return same;
    case 'jump':
      // "jumped ship to Globex".
      if (p.prep === 'to' && p.noun === 'ship' && !isPerson(p.target)) return { relation: 'joined' };
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
  // "Paul and Anna are married / engaged / a couple / dating".
  if (copulaWord === 'married') return 'married_to';
  if (copulaWord === 'engaged') return 'engaged_to';
  if (copulaWord === 'couple' || copulaWord === 'together' || lemma === 'date') return 'dates';
  if (phrasal === 'fall out') return 'fell_out_with';
  if (copulaWord === 'quits') return 'broke_up_with';
  if (lemma === 'marry') return 'married_to';
  if (lemma === 'engage') return 'engaged_to';
  return null;
}

/** Employer verbs turned around: "The Tigers fired Sundar" → Sundar `fired_from` the Tigers. */
export function dismissal(lemma: string, particle: string | null): string | null {
  const phrasal = particle ? `${lemma} ${particle}` : lemma;
  return DISMISSING_VERBS[phrasal] ?? (particle === null ? DISMISSING_VERBS[lemma] ?? null : null);
}

/** "Meta hired Priya" → Priya `hired_by` Meta; "Priya was poached by Meta" likewise. */
export function hiring(lemma: string, particle: string | null): string | null {
  return particle === null ? HIRING_VERBS[lemma] ?? null : null;
}
