import { appositionFacts } from './appositions';
import { findSubjects, findVerbGroups, isAdverb, type VerbGroup } from './clauses';
import type { DateSpan } from './dates';
import { coupleWord, saysAlongside, withBuyers, withEmployers, withPartners, withThingsMoved } from './fact-links';
import {
  EVENT_VERBS,
  LIGHT_VERBS,
  LOCATION_OBJECT_VERBS,
  ORGANIZATION_OBJECT_VERBS,
  ORGANIZATION_SUBJECT_VERBS,
  ROLE_NOUNS,
  STATE_VERBS,
  THEMES,
} from './lexicon';
import { isGivenName, type Mention } from './mentions';
import { looksCapitalized, verbForms, type ParsedSentence, type Token } from './nlp';
import { scanObjects, type ObjectHit } from './object-scan';
import { bereaved, divorcedBy, openEnding } from './open-endings';
import { officeHolderNoun, roleFacts } from './roles';
import { nounFacts } from './state-nouns';
import { validityOf, nearestDateBefore } from './validity';
import { canonicalPredicate, DISMISSAL_NOUNS, dismissal, HEADQUARTERS_NOUNS, hiring, HOME_NOUNS, JOB_NOUNS, OWNABLE_NOUNS, PERSONAL_NOUNS, reciprocalRelation, STUDY_NOUNS } from './vocabulary';

/**
 * Subject–verb–object relations inside one sentence, from the tags of the NLP library:
 *
 *   SUBJECT [adverbs] VERB-GROUP [particle] ... [prep] OBJECT [, and OBJECT]*
 *
 * - the predicate is the verb, plus the preposition before the object: `works_at`, `moved_to`;
 *   state verbs take the present tense and event verbs the past whatever the text says
 *   ("worked at" → `works_at`, "moves to" → `moved_to`), so one kind of fact has one name;
 * - passive with an agent is turned around ("was acquired by Google" → Google `acquired` X);
 *   without one the participle names it ("is based in Berlin" → `based_in`);
 * - "X is the CEO of Y" → `ceo_of` (the noun or adjective after a copula + the preposition);
 * - subjects: the name right before the verb, names joined by "and", a name before a
 *   parenthesis (", a software engineer," / ", who ...,"), or the subject of the previous verb
 *   of the same sentence when the verb follows "and";
 * - a common-noun phrase without an article is an object too (`studies` machine learning);
 * - negated verbs give nothing, unless the sentence says the fact ended ("no longer",
 *   "used to", "anymore"): then the fact is kept with an `invalid_at`.
 * A pronoun is never a subject or an object, so no relation crosses a sentence boundary.
 */

export interface RelationCandidate {
  source: Mention;
  target: Mention;
  relation: string;
  keywords: string[];
  validAt: string | null;
  invalidAt: string | null;
  sentence: number;
  /** "Omar also works at Oxfam": the fact holds beside the slot's other values. */
  alongside?: boolean;
}

export interface SentenceInput {
  sentence: ParsedSentence;
  /** Entity mentions of this sentence, in order. */
  mentions: Mention[];
  /** Date spans of this sentence, in order. */
  dates: DateSpan[];
  referenceDate?: Date;
}

/** "Priya retired last year": a state of the subject ended, its object unnamed (open-endings.ts). */
export interface EndingCandidate {
  subject: Mention;
  relation: string;
  noun: string | null;
  validAt: string | null;
  sentence: number;
}

export interface SentenceRelations {
  relations: RelationCandidate[];
  endings: EndingCandidate[];
  /** Concept entities made from common-noun objects. */
  concepts: Mention[];
}


/** Passives whose subject keeps the fact: "was hired by Globex" is Alice's employment. */
const SUBJECT_KEEPING_PASSIVES = new Set(['hire', 'employ']);
/** "left the BBC to join Channel 4", "went to work for Disney": the infinitive's subject is the sentence's. */
const PURPOSE_VERBS = new Set(['leave', 'quit', 'go', 'move', 'resign', 'retire', 'return', 'come', 'relocate', 'appoint', 'hire', 'name', 'promote', 'choose', 'pick', 'elect']);
const LIGHT_VERB_NOUNS = new Set([...JOB_NOUNS, ...HEADQUARTERS_NOUNS, ...STUDY_NOUNS, ...Object.keys(PERSONAL_NOUNS), ...OWNABLE_NOUNS, ...DISMISSAL_NOUNS]);
const LEAVING_LEMMAS = new Set(['leave', 'quit', 'exit', 'desert', 'abandon']);
/** A home one has and does not live in. */
const SECOND_HOMES = /\b(?:second|holiday|summer|weekend|country|beach|ski)\s+(?:home|house|flat|apartment|studio)\b/i;
/** Nouns a name before them may still be the body of ("left the Acme team" is leaving Acme's team). */
const BODY_PARTS = new Set(['team', 'squad', 'board', 'band', 'choir', 'club', 'party', 'staff', 'group', 'company', 'firm', 'side', 'orchestra', 'committee', 'council', 'union', 'society']);

const isGivenNameAlone = (mention: Mention) => !/\s/.test(mention.name) && isGivenName(mention);

/** "a Harley", "an old Rolex": an indefinite article (and adjectives) before the name at `k`. */
function indefiniteBefore(toks: Token[], k: number): boolean {
  let j = k - 1;
  while (j >= 0 && toks[j].tags.has('Adjective') && !toks[j].tags.has('Noun')) j--;
  return j >= 0 && (toks[j].normal === 'a' || toks[j].normal === 'an');
}

/** The word after a name is a common noun the name qualifies ("the Green Party conference"), not a body the name is. */
function qualifiesNoun(after: Token | undefined, last: Token | undefined): boolean {
  if (!after || !last || /[^\s]/.test(last.post)) return false;
  if (!/^\p{Ll}/u.test(after.text) || !after.tags.has('Noun') || after.tags.has('ProperNoun') || after.tags.has('Pronoun') || after.tags.has('Date') || looksCapitalized(after.text)) return false;
  return !BODY_PARTS.has(after.normal);
}
const THINGS_PARTED_WITH = new Set(['sold', 'gave_away', 'lost']);
const OWNING_DETERMINERS = new Set(['his', 'her', 'their', 'my', 'our']);
/** What one is "on" as a member ("on the Hawks basketball team", "on the board"), right after its name. */
const ON_BODIES = /^(?:\S+ )?(?:team|squad|roster|side|board|committee|council|panel|crew)\b/;
const SPORTS = /^(?:football|basketball|soccer|rugby|hockey|cricket|baseball|volleyball|netball|softball|handball|lacrosse|team|squad|roster|side)\b/;
const NOW_WORDS = /\b(?:now|nowadays|these days)\b/i;
const COORDINATORS = new Set(['and', 'then', 'but', 'later', 'also', 'or']);

export function snakeCase(words: string): string {
  return words
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');
}

export function extractSentenceRelations(input: SentenceInput): SentenceRelations {
  const toks = input.sentence.tokens;
  const n = toks.length;
  if (n === 0) return { relations: [], concepts: [], endings: [] };
  const base = toks[0].index;
  const mentionAt = new Map<number, Mention>();
  const mentionEndingAt = new Map<number, Mention>();
  const covered: boolean[] = new Array(n).fill(false);
  for (const m of input.mentions) {
    mentionAt.set(m.start - base, m);
    mentionEndingAt.set(m.end - 1 - base, m);
    for (let i = m.start; i < m.end; i++) covered[i - base] = true;
  }
  const dateAt = new Map<number, DateSpan>();
  for (const d of input.dates) {
    dateAt.set(d.start - base, d);
    for (let i = d.start; i < d.end; i++) covered[i - base] = true;
  }

  const groups = findVerbGroups(toks, covered);
  const relations: RelationCandidate[] = [];
  const concepts: Mention[] = [];
  const endings: EndingCandidate[] = [];
  const usedDates = new Set<DateSpan>();
  let previousSubjects: Mention[] = [];
  let previousDate: DateSpan | null = null;

  for (let g = 0; g < groups.length; g++) {
    const group = groups[g];
    let subjects = findSubjects(toks, group.start, mentionEndingAt);
    // "Acme's headquarters is in Boston", "Apollo Bank's headquarters moved to Geneva".
    const owner = headquartersOwner(toks, group.start, mentionEndingAt);
    const headquarters = owner && (subjects.length === 0 || subjects[0] === owner) ? owner : null;
    if (headquarters) subjects = [headquarters];
    let before = group.start - 1;
    while (before > 0 && isAdverb(toks[before])) before--;
    const coordinated = subjects.length === 0 && before >= 0 && COORDINATORS.has(toks[before].normal);
    const purpose =
      subjects.length === 0 && before >= 0 && toks[before].normal === 'to' && g > 0 && PURPOSE_VERBS.has(groups[g - 1].lemma);
    // "went freelance after leaving Acme": a gerund after "after" or "since" is the subject's own doing.
    // ("since leaving Ikea": the tagger may read "since" as an adverb.)
    const sinceOrAfter = (t: Token | undefined) => t !== undefined && ['after', 'since'].includes(t.normal);
    const afterDoing = subjects.length === 0 && (sinceOrAfter(toks[before]) || sinceOrAfter(toks[group.start - 1])) && group.main.tags.has('Gerund') && g > 0;
    // "Paula is an engineer working for Google", "a nurse living in Leeds": a participle after the
    // copula's noun says more of the copula's subject.
    const describing =
      subjects.length === 0 && g > 0 && groups[g - 1].copula && group.main.tags.has('Gerund') && onlyNounPhrase(toks.slice(groups[g - 1].end, group.start));
    // "Diego hung up his gloves in May, retiring from Club América": a participle set off by a
    // comma after a clause tells more of what its subject did.
    // ("Tom left Leeds, moving to York": not the object before the comma.)
    const participleClause =
      g > 0 &&
      !groups[g - 1].copula &&
      group.main.tags.has('Gerund') &&
      group.main.normal.endsWith('ing') &&
      group.start > 0 &&
      /,/.test(toks[group.start - 1].post) &&
      subjects.every((subject) => subject.start - base >= groups[g - 1].end);
    if (coordinated || purpose || afterDoing || describing || participleClause) subjects = previousSubjects;
    const scan = scanObjects(toks, group, n, mentionAt, dateAt, covered, base);
    const subjectsBefore = previousSubjects;
    previousSubjects = subjects;
    if (group.modal) continue;
    // "Anya's husband died in 2024", "Amir's wife Leila passed away": their marriage ended.
    const divorced = divorcedBy(toks, group, mentionEndingAt, subjectsBefore);
    if (divorced.length > 0) {
      const date = scan.date ?? nearestDateBefore(input.dates, toks[group.start].index, usedDates);
      const validAt = validityOf(date, { ...group, ended: false }, input.referenceDate).validAt;
      for (const spouse of divorced) endings.push({ subject: spouse, relation: 'divorced', noun: null, validAt, sentence: input.sentence.index });
      continue;
    }
    const widow = subjects.length <= 1 ? bereaved(toks, group, mentionEndingAt) : null;
    if (widow) {
      const date = scan.date ?? nearestDateBefore(input.dates, toks[group.start].index, usedDates);
      endings.push({ subject: widow, relation: 'widowed', noun: null, validAt: validityOf(date, { ...group, ended: false }, input.referenceDate).validAt, sentence: input.sentence.index });
      continue;
    }
    const also = saysAlongside(toks, group) ? { alongside: true } : {};
    for (const c of scan.concepts) concepts.push(c);
    // "Tyler's internship at Meta ended", "Max's new address is in Hamburg": a noun names the state.
    const nominal = nounFacts(toks, group, mentionAt, mentionEndingAt, base, subjects);
    if (nominal.length > 0) {
      const date = scan.date ?? nearestDateBefore(input.dates, toks[group.start].index, usedDates);
      if (date) usedDates.add(date);
      const nominalFacts: RelationCandidate[] = [];
      for (const fact of nominal) {
        const validity = validityOf(date, { ...group, ended: fact.ended }, input.referenceDate);
        if (fact.ended && !validity.invalidAt) continue;
        const theme = THEMES[fact.noun];
        nominalFacts.push({
          source: fact.holder,
          target: fact.target,
          relation: fact.relation,
          keywords: [...new Set([fact.relation.replace(/_/g, ' '), ...(theme ? [theme] : [])])],
          ...validity,
          sentence: input.sentence.index,
          ...also,
        });
        if (fact.concept) concepts.push(fact.concept);
      }
      relations.push(...withPartners(nominalFacts));
      continue;
    }
    const found = !group.negative ? roleFacts(toks, group, mentionAt, base, subjects) : [];
    // A role whose holder the clause does not name needs the clause's subject.
    const roles = found.filter((role) => role.holder !== null || subjects.length > 0);
    // "Kate and Josh broke up", "Greta and Paula are no longer friends": a fact between the subjects.
    // ("Hamid and Leyla got married in Tabriz": where or when it happened is no other party.)
    const circumstantial = scan.objects.every((hit) => hit.prep !== null && ['in', 'at', 'on', 'during'].includes(hit.prep) && hit.mention.type !== 'person');
    const reciprocal = subjects.length > 1 && circumstantial ? reciprocalRelation(group.lemma, group.particle, scan.copulaWord ?? coupleWord(toks, group)) : null;
    if (reciprocal && !(group.negative && !group.ended)) {
      const validity = validityOf(scan.date ?? nearestDateBefore(input.dates, toks[group.start].index, usedDates), group, input.referenceDate);
      if (!group.ended || validity.invalidAt) {
        for (const [source, target] of [[subjects[0], subjects[1]], [subjects[1], subjects[0]]]) {
          relations.push({
            source,
            target,
            relation: reciprocal,
            keywords: [reciprocal.replace(/_/g, ' '), 'relationship'],
            ...validity,
            sentence: input.sentence.index,
            ...also,
          });
        }
      }
      if (scan.objects.length === 0) continue;
    }
    // "Priya retired last year", "She quit her job": the subject's own state ended.
    const open = subjects.length > 0 && roles.length === 0 ? openEnding(toks, group, scan.objects, scan.copulaWord) : null;
    if (open) {
      const date = scan.date ?? nearestDateBefore(input.dates, toks[group.start].index, usedDates);
      if (date) usedDates.add(date);
      const validity = validityOf(date, { ...group, ended: false }, input.referenceDate);
      for (const subject of subjects) endings.push({ subject, relation: open.relation, noun: open.noun, validAt: validity.validAt, sentence: input.sentence.index });
      continue;
    }
    if ((subjects.length === 0 && roles.length === 0) || (scan.objects.length === 0 && roles.length === 0)) continue;
    if (group.negative && !group.ended) continue;

    let date = scan.date;
    if (!date) date = nearestDateBefore(input.dates, toks[group.start].index, usedDates);
    // "In June 2025 Alice left Acme and joined Globex": both events happened then.
    if (!date && coordinated) date = previousDate;
    if (date) usedDates.add(date);
    previousDate = date;

    for (const role of roles) {
      const validity = validityOf(date, { ...group, ended: group.ended || role.ended }, input.referenceDate);
      if ((role.ended || group.ended) && !validity.invalidAt) continue;
      for (const holder of role.holder ? [role.holder] : subjects) {
        if (holder === role.organization) continue;
        relations.push({
          source: holder,
          target: role.organization,
          relation: role.relation,
          keywords: [role.relation.replace(/_/g, ' '), 'leadership'],
          ...validity,
          sentence: input.sentence.index,
          ...also,
        });
      }
      if (role.concept) concepts.push(role.concept);
      // "Hilda stepped down as treasurer": the role she held at whatever organization the earlier text named.
      if (role.relation === 'has_role' && (role.ended || group.ended) && validity.invalidAt) {
        for (const holder of role.holder ? [role.holder] : subjects) {
          endings.push({ subject: holder, relation: 'stepped_down', noun: officeHolderNoun(role.organization.name.toLowerCase()), validAt: validity.invalidAt, sentence: input.sentence.index });
        }
      }
    }
    if (roles.length > 0) continue;
    // "got a new job at the Savoy", "has its headquarters in Zurich": the noun carries the fact.
    // ("got out of Belmarsh", "let Tariq go": with its particle the verb says what happened.)
    if (LIGHT_VERBS.has(group.lemma) && !group.copula && group.particle !== 'out') {
      const employer = subjects.length > 0 && subjects.every((s) => s.type !== 'person');
      // ("has a flat in Cardiff": a home one has is where one lives; not one had, nor a holiday home.)
      const home = (hit: ObjectHit) =>
        group.lemma === 'have' && !group.main.tags.has('PastTense') && hit.prep === 'in' && hit.noun !== null && HOME_NOUNS.has(hit.noun) && hit.noun !== 'room' && !SECOND_HOMES.test(input.sentence.text);
      // ("has a Harley Davidson", "has an old Rolex": one of a make's things, owned.)
      // ("has a Tom in her class": a given name alone is someone of that name.)
      const made = (hit: ObjectHit) =>
        group.lemma === 'have' && hit.prep === null && hit.noun === null && !hit.mention.common && indefiniteBefore(toks, hit.mention.start - base) && !isGivenNameAlone(hit.mention);
      scan.objects = scan.objects.filter((hit) => {
        if (made(hit)) {
          hit.indefinite = true;
          if (hit.mention.type === 'person') hit.mention.type = 'concept';
          return true;
        }
        return (hit.noun !== null && LIGHT_VERB_NOUNS.has(hit.noun)) || home(hit) || (employer && lettingGo(group, hit));
      });
    }

    const now = NOW_WORDS.test(input.sentence.text);
    const sentenceFacts: RelationCandidate[] = [];
    for (const hit of scan.objects) {
      const validity = validityOf(date, hit.former ? { ...group, ended: true } : group, input.referenceDate);
      // "Alice no longer works at Acme" with no date to close it would read as a live fact.
      if ((group.ended || hit.former) && !validity.invalidAt) continue;
      const built = predicateFor(group, hit);
      if (!built) continue;
      // "left the Green Party conference early": what was left is the noun the name qualifies.
      if (hit.prep === null && LEAVING_LEMMAS.has(group.lemma) && qualifiesNoun(toks[hit.mention.end - base], toks[hit.mention.end - base - 1])) continue;
      for (const subject of subjects) {
        let [source, target] = built.agent ? [hit.mention, subject] : [subject, hit.mention];
        if (source === target || source.name.toLowerCase() === target.name.toLowerCase()) continue;
        retype(source, target, group, hit);
        let relation = built.relation;
        // "The Tigers fired Sundar": the fact is Sundar's.
        // "Meta hired Priya": the fact is Priya's too.
        const dismissed = !group.passive && !group.copula ? (lettingGo(group, hit) ? 'laid_off_from' : dismissal(group.lemma, group.particle) ?? hiring(group.lemma, group.particle)) : null;
        // "Acme signed the deal", "employed a new method": only a name the tagger knows as a person is signed or employed.
        const strict = group.lemma === 'sign' || group.lemma === 'employ';
        const employee = target.type === 'person' || (!strict && target.type === 'concept' && !target.common);
        if (dismissed && hit.prep === null && employee && source.type !== 'person') {
          if (target.type === 'concept') target.type = 'person';
          [source, target] = [target, source];
          relation = dismissed;
        } else {
          const canonical = canonicalPredicate({
            relation,
            lemma: group.lemma,
            particle: group.particle,
            prep: hit.prep,
            copula: group.copula,
            passive: group.passive,
            gerund: group.main.tags.has('Gerund'),
            past: group.main.tags.has('PastTense') || group.main.tags.has('Participle'),
            noun: headquarters ? 'headquarters' : (hit.copulaWord ?? hit.noun),
            possessed: hit.possessed === true,
            now,
            title: hit.title ?? null,
            next: hit.next ?? null,
            fresh: hit.fresh === true,
            indefinite: hit.indefinite === true,
            visit: group.copula && (group.main.normal === 'was' || group.main.normal === 'were') && !now,
            sourceArticle: toks[source.start - base - 1]?.normal === 'the',
            source,
            target,
          });
          relation = canonical.relation;
          if (canonical.reversed) [source, target] = [target, source];
          // "works for Barclays in Canary Wharf": with the employer named, "in" names where, not a second employer.
          if (relation === 'works_at' && hit.prep === 'in' && sentenceFacts.some((f) => f.source === source && f.relation === 'works_at')) {
            relation = 'works_in';
            if (target.type === 'concept' || target.type === 'organization') target.type = 'location';
          }
        }
        // "sold his Civic" after "owns a red Honda Civic": his own thing, named by a part of its name.
        const lastWord = hit.mention.name.split(' ').pop()!.toLowerCase();
        if (THINGS_PARTED_WITH.has(relation) && OWNING_DETERMINERS.has(toks[hit.mention.start - base - 1]?.normal ?? '') && /^[\p{L}\p{N}-]+$/u.test(lastWord)) {
          endings.push({ subject: source, relation: 'sold', noun: lastWord, validAt: validity.validAt, sentence: input.sentence.index });
        }
        const theme = THEMES[group.lemma] ?? (hit.copulaWord ? THEMES[hit.copulaWord] : undefined);
        sentenceFacts.push({
          source,
          target,
          relation,
          keywords: [...new Set([relation.replace(/_/g, ' '), ...(theme ? [theme] : [])])],
          validAt: validity.validAt,
          invalidAt: validity.invalidAt,
          sentence: input.sentence.index,
          ...also,
        });
      }
    }
    relations.push(...withPartners(withEmployers(withBuyers(withThingsMoved(sentenceFacts, group, scan.objects)))));
  }
  // "Tom, a nurse at St. Mary's, …": the apposition's state.
  const reference = input.referenceDate && !Number.isNaN(input.referenceDate.getTime()) ? input.referenceDate.toISOString() : null;
  for (const fact of appositionFacts(toks, input.mentions, mentionAt, base)) {
    if (fact.ended && !reference) continue;
    if (relations.some((r) => r.source === fact.source && r.target === fact.target && r.relation === fact.relation)) continue;
    relations.push(
      ...withPartners([
        {
          source: fact.source,
          target: fact.target,
          relation: fact.relation,
          keywords: [fact.relation.replace(/_/g, ' ')],
          validAt: null,
          invalidAt: fact.ended ? reference : null,
          sentence: input.sentence.index,
        },
      ]),
    );
  }
  return { relations, concepts, endings };
}

/** The words are a short common noun phrase, not set off by a comma ("a senior engineer"). */
function onlyNounPhrase(words: Token[]): boolean {
  const nounPhrase = words.length > 0 && words.length <= 5 && words.every((t) => ['a', 'an', 'the'].includes(t.normal) || t.tags.has('Adjective') || (t.tags.has('Noun') && !t.tags.has('ProperNoun')));
  return nounPhrase && !/[,;:]/.test(words[words.length - 1].post);
}

/** "Babcock let Tariq go", "Acme made Jana redundant": an employer's verb around its object. */
function lettingGo(group: VerbGroup, hit: ObjectHit): boolean {
  if (group.particle || hit.prep !== null) return false;
  // (not "let Tom go to the party", "let her go home")
  if (group.lemma === 'let') return /^go\b/.test(hit.next ?? '') && !/^go (?:to|home|out|with|and|on|back)\b/.test(hit.next ?? '');
  return group.lemma === 'make' && /^redundant\b/.test(hit.next ?? '');
}

/** The possessor in "Acme's headquarters" / "Acme's head office" right before a verb. */
function headquartersOwner(toks: Token[], groupStart: number, mentionEndingAt: Map<number, Mention>): Mention | null {
  // "The headquarters of Acme are in Paris".
  const named = mentionEndingAt.get(groupStart - 1);
  if (named && named.type !== 'person') {
    let at = named.start - toks[0].index - 1;
    if (toks[at]?.normal === 'the') at--;
    if (toks[at]?.normal === 'of' && ['headquarters', 'hq'].includes(toks[at - 1]?.normal ?? '')) return named;
  }
  let k = groupStart - 1;
  // ("Brightwave's offices are in Shoreditch": the plural too.)
  if (k >= 0 && !HEADQUARTERS_NOUNS.has(toks[k].normal) && toks[k].normal !== 'offices') return null;
  if (k >= 1 && toks[k].normal === 'office' && toks[k - 1].normal === 'head') k--;
  // "Acme's new headquarters"
  while (k >= 2 && ['new', 'current', 'present', 'former', 'old'].includes(toks[k - 1].normal)) k--;
  const owner = mentionEndingAt.get(k - 1);
  if (!owner || owner.type === 'person') return null;
  const last = toks[k - 1];
  // "the Globex headquarters": the name qualifies the noun after "the".
  const qualifying = toks[owner.start - toks[0].index - 1]?.normal === 'the';
  return qualifying || last.tags.has('Possessive') || /['’]s?$/.test(last.text) || /^['’]/.test(last.post) ? owner : null;
}

function predicateFor(group: VerbGroup, hit: ObjectHit): { relation: string; agent: boolean } | null {
  const { prep } = hit;
  if (group.copula) {
    if (prep === null) return null;
    if (hit.copulaWord) return { relation: snakeCase(`${hit.copulaWord} ${prep}`), agent: false };
    // "Alice is now at Globex", "Priya is with Google": a person at an organization works there.
    if (prep === 'at' && hit.mention.type === 'organization') return { relation: 'works_at', agent: false };
    if (prep === 'with' && (hit.mention.type === 'organization' || (hit.mention.type === 'concept' && !hit.mention.common))) return { relation: 'works_at', agent: false };
    if (prep === 'in' || prep === 'at' || prep === 'inside') return { relation: 'located_in', agent: false };
    if (prep === 'from') return { relation: 'from', agent: false };
    // "Yusuf is on the Hartford Hawks basketball team", "is on the Hawks' squad": one of its members.
    if (prep === 'on' && ON_BODIES.test(hit.next ?? '')) return { relation: SPORTS.test(hit.next ?? '') ? 'plays_for' : 'member_of', agent: false };
    return null;
  }
  if (group.passive) {
    if (prep === 'by' && SUBJECT_KEEPING_PASSIVES.has(group.lemma)) return { relation: `${verbForms(group.lemma).past}_by`, agent: false };
    // "was laid off by Goldman Sachs": Marcus's job ended.
    // ("was signed by Bush" is a bill's, not a player's: only hiring verbs of people here.)
    const dismissed = prep === 'by' ? dismissal(group.lemma, group.particle) ?? (group.lemma !== 'sign' ? hiring(group.lemma, group.particle) : null) : null;
    if (dismissed) return { relation: dismissed, agent: false };
    if (prep === 'by') return { relation: activeName(group), agent: true };
    if (prep === null) return null;
    return { relation: snakeCase(`${group.main.normal} ${prep}`), agent: false };
  }
  const verb = activeName(group);
  // "left Acme for Globex": the move's destination is the new employer.
  if (group.lemma === 'leave' && prep === 'for') return { relation: 'joined', agent: false };
  return { relation: prep ? snakeCase(`${verb} ${prep}`) : verb, agent: false };
}

function activeName(group: VerbGroup): string {
  const forms = verbForms(group.lemma);
  let word: string;
  if (STATE_VERBS.has(group.lemma)) word = forms.present;
  else if (EVENT_VERBS.has(group.lemma) || group.passive) word = forms.past;
  else word = group.main.tags.has('PastTense') ? forms.past : forms.present;
  return snakeCase(group.particle ? `${word} ${group.particle}` : word);
}

/** Names the library could not type get a type from the verb that links them. */
function retype(source: Mention, target: Mention, group: VerbGroup, hit: ObjectHit): void {
  const { prep, copulaWord } = hit;
  const lemma = group.lemma;
  // ("moved on from Acme", "moved across to Globex": a change of employer, not of place.)
  const sides = group.particle !== null && ['on', 'across', 'over'].includes(group.particle);
  if (target.type === 'concept' && !target.common) {
    if (copulaWord && ROLE_NOUNS.has(copulaWord) && prep && ['of', 'at', 'for'].includes(prep)) target.type = 'organization';
    else if (LOCATION_OBJECT_VERBS.has(lemma) && !sides && prep && ['in', 'to', 'from', 'at', 'near'].includes(prep)) target.type = 'location';
    else if (ORGANIZATION_OBJECT_VERBS.has(lemma)) target.type = 'organization';
  }
  if (source.type === 'concept' && !source.common && ORGANIZATION_SUBJECT_VERBS.has(lemma)) source.type = 'organization';
}
