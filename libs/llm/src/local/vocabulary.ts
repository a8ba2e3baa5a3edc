import { isGroup, isHospital, isPerson, isPlace, isPlainPlace, isPositionParticiple, isSchool, isSomeone, lastWord, type Predicate, type PredicateInput } from './predicate-input';
import { verbPredicate } from './verb-predicates';
import {
  BODY_NOUNS,
  COPULA_NOUNS,
  DISMISSING_VERBS,
  FINISHING,
  GIVING_NOTICE,
  GROUP_HEADS,
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
  OWNABLE_NOUNS,
  OWNED_NOUNS,
  PARTING_VERBS,
  PERSONAL_NOUNS,
  PHYSICIAN_TITLES,
  POSITION_VERBS,
  SPORT_VERBS,
  STAFF_NOUNS,
  STANDING_VERBS,
  STUDYING,
  STUDY_NOUNS,
  SWITCHING_VERBS,
} from './vocabulary-words';

export type { Predicate, PredicateInput } from './predicate-input';
export { isSomeone } from './predicate-input';
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



/** A part of an organization one runs as a job ("runs the IT department at Barclays"; not "ran a workshop at Lloyds"). */
const STAKE_NOUNS = new Set(['stake', 'share', 'shareholding', 'holding', 'interest']);
/** Owning a home somewhere, buying and selling one. */
const HOME_OWNING: Readonly<Record<string, string>> = { own: 'owns_home_in', buy: 'bought_home_in', purchase: 'bought_home_in', sell: 'sold_home_in' };
/** Verbs of settling whose place "there" gave, and the relation the preposition would have given. */
const PLACE_WITHOUT_PREPOSITION: Readonly<Record<string, string>> = { move: 'moved_to', relocate: 'relocated_to', settle: 'settled_in', live: 'lives_in', emigrate: 'emigrated_to' };
/** Nouns of a move that carry its "from" and "to" whatever light verb they follow. */
const MOVE_NOUNS = new Set(['transfer', 'move', 'switch', 'relocation']);
/** "is in hospital at St. George's", "is in rehab at the Priory", "is in prison at Belmarsh". */
const CONFINING_NOUNS: Readonly<Record<string, string>> = { hospital: 'patient_at', rehab: 'patient_at', prison: 'held_at', jail: 'held_at', gaol: 'held_at' };


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
  const byVerb = verbPredicate(p);
  if (byVerb) return byVerb;
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
