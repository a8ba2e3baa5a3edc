import { isFamily, isGroup, isHospital, isPerson, isPlace, isPlainPlace, isSchool, isSomeone, type Predicate, type PredicateInput } from './predicate-input';
import { DISMISSAL_NOUNS, GROUP_HEADS, HEADQUARTERS_NOUNS, HOME_NOUNS, OFFICES } from './vocabulary-words';

/**
 * The relation a verb's own meaning gives a clause ("runs Orion Capital" → `leads`, "lives in"
 * → `lives_in`), after the copula's and the nouns' rules in `canonicalPredicate` found none:
 * one case a lemma. Undefined when the lemma has no case; the verb's words name the fact then.
 */

const UNIT_NOUNS = new Set(['department', 'team', 'division', 'unit', 'office', 'branch', 'plant', 'factory', 'site', 'subsidiary', 'lab', 'laboratory', 'desk', 'group', 'operation', 'store', 'shop', 'kitchen', 'ward', 'clinic', 'section', 'practice']);
/** The words that open a second object after a name ("gave the Gala Cinema a new screen"). */
const RECIPIENT_NEXT = /^(?:a|an|the|some|his|her|their|its|our|my|\d+|one|two|three|four|five)\b/;
/** What one ends with a partner ("ended things with Leo"). */
const ENDED_BONDS = new Set(['thing', 'relationship', 'romance', 'affair', 'engagement', 'marriage']);
/** The office named by the verb of holding it ("directs" → director). */
const ROLE_OF_VERB: Readonly<Record<string, string>> = { direct: 'director', manage: 'manager', edit: 'editor', govern: 'governor' };
/** A site of an organization, named after the place it is in ("the Pune office"). */
const BRANCH_NOUNS = new Set(['office', 'offices', 'branch', 'site', 'plant', 'campus', 'store', 'depot', 'factory', 'headquarters', 'hq']);
/** A time spent somewhere ("his time at", "her spell at"). */
const PERIOD_NOUNS = new Set(['time', 'spell', 'stint', 'career', 'tenure', 'term']);

export function verbPredicate(p: PredicateInput): Predicate | undefined {
  const same = { relation: p.relation };
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
  return undefined;
}
