import type { DateSpan } from './dates';
import {
  BLOCKING_PREPOSITIONS,
  CLAUSE_BREAKERS,
  EVENT_VERBS,
  LIGHT_VERBS,
  LOCATION_OBJECT_VERBS,
  ORGANIZATION_OBJECT_VERBS,
  ORGANIZATION_SUBJECT_VERBS,
  PRONOUNS,
  RELATION_PREPOSITIONS,
  ROLE_NOUNS,
  STATE_VERBS,
  THEMES,
  VAGUE_NOUNS,
  singularNoun,
} from './lexicon';
import type { Mention } from './mentions';
import { findSubjects, findVerbGroups, isAdverb, isNegative, isVerbish, type VerbGroup } from './clauses';
import { verbForms, type ParsedSentence, type Token } from './nlp';
import { roleFacts } from './roles';
import { canonicalPredicate, dismissal, HEADQUARTERS_NOUNS, JOB_NOUNS, reciprocalRelation } from './vocabulary';

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
}

export interface SentenceInput {
  sentence: ParsedSentence;
  /** Entity mentions of this sentence, in order. */
  mentions: Mention[];
  /** Date spans of this sentence, in order. */
  dates: DateSpan[];
  referenceDate?: Date;
}

export interface SentenceRelations {
  relations: RelationCandidate[];
  /** Concept entities made from common-noun objects. */
  concepts: Mention[];
}

interface ObjectHit {
  mention: Mention;
  prep: string | null;
  /** The noun or adjective that names a copula predicate ("capital" in "is the capital of"). */
  copulaWord: string | null;
  /** "is the former CEO of": the role is over. */
  former: boolean;
  /** The head of the last common-noun phrase before the object ("job" in "took a job at"). */
  noun: string | null;
  /** "is Maria's husband": the object is the possessor of the copula's noun. */
  possessed?: boolean;
}

const FORMER_WORDS = new Set(['former', 'ex', 'previous', 'erstwhile', 'one-time']);
/** Passives whose subject keeps the fact: "was hired by Globex" is Alice's employment. */
const SUBJECT_KEEPING_PASSIVES = new Set(['hire', 'employ']);
const TRANSPARENT_VERBS = new Set(['called', 'named', 'known', 'titled', 'dubbed']);
/** "works as an engineer at Tesla": after these verbs "as" + a noun phrase is the job, not a circumstance. */
const AS_TRANSPARENT = new Set(['work', 'serve', 'act', 'start', 'join', 'return', 'stay', 'remain', 'continue', 'begin', 'be']);
/** "left the BBC to join Channel 4", "went to work for Disney": the infinitive's subject is the sentence's. */
const PURPOSE_VERBS = new Set(['leave', 'quit', 'go', 'move', 'resign', 'retire', 'return', 'come', 'relocate']);
const LIGHT_VERB_NOUNS = new Set([...JOB_NOUNS, ...HEADQUARTERS_NOUNS]);
const NOW_WORDS = /\b(?:now|nowadays|these days)\b/i;
const WEEKDAY = /\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b/i;
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
  if (n === 0) return { relations: [], concepts: [] };
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
  const usedDates = new Set<DateSpan>();
  let previousSubjects: Mention[] = [];
  let previousDate: DateSpan | null = null;

  for (let g = 0; g < groups.length; g++) {
    const group = groups[g];
    let subjects = findSubjects(toks, group.start, mentionEndingAt);
    // "Acme's headquarters is in Boston", "Apollo Bank's headquarters moved to Geneva".
    const headquarters = subjects.length === 0 ? headquartersOwner(toks, group.start, mentionEndingAt) : null;
    if (headquarters) subjects = [headquarters];
    let before = group.start - 1;
    while (before > 0 && isAdverb(toks[before])) before--;
    const coordinated = subjects.length === 0 && before >= 0 && COORDINATORS.has(toks[before].normal);
    const purpose =
      subjects.length === 0 && before >= 0 && toks[before].normal === 'to' && g > 0 && PURPOSE_VERBS.has(groups[g - 1].lemma);
    if (coordinated || purpose) subjects = previousSubjects;
    const scan = scanObjects(toks, group, n, mentionAt, dateAt, covered, base);
    previousSubjects = subjects;
    if (group.modal) continue;
    for (const c of scan.concepts) concepts.push(c);
    const found = !group.negative ? roleFacts(toks, group, mentionAt, base, subjects) : [];
    // A role whose holder the clause does not name needs the clause's subject.
    const roles = found.filter((role) => role.holder !== null || subjects.length > 0);
    // "Kate and Josh broke up", "Greta and Paula are no longer friends": a fact between the subjects.
    const reciprocal = subjects.length > 1 && scan.objects.length === 0 ? reciprocalRelation(group.lemma, group.particle, scan.copulaWord) : null;
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
          });
        }
      }
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
        });
      }
      if (role.concept) concepts.push(role.concept);
    }
    if (roles.length > 0) continue;
    // "got a new job at the Savoy", "has its headquarters in Zurich": the noun carries the fact.
    if (LIGHT_VERBS.has(group.lemma) && !group.copula) scan.objects = scan.objects.filter((hit) => hit.noun !== null && LIGHT_VERB_NOUNS.has(hit.noun));

    const now = NOW_WORDS.test(input.sentence.text);
    const sentenceFacts: RelationCandidate[] = [];
    for (const hit of scan.objects) {
      const validity = validityOf(date, hit.former ? { ...group, ended: true } : group, input.referenceDate);
      // "Alice no longer works at Acme" with no date to close it would read as a live fact.
      if ((group.ended || hit.former) && !validity.invalidAt) continue;
      const built = predicateFor(group, hit);
      if (!built) continue;
      for (const subject of subjects) {
        let [source, target] = built.agent ? [hit.mention, subject] : [subject, hit.mention];
        if (source === target || source.name.toLowerCase() === target.name.toLowerCase()) continue;
        retype(source, target, group.lemma, hit);
        let relation = built.relation;
        // "The Tigers fired Sundar": the fact is Sundar's.
        const dismissed = !group.passive && !group.copula ? dismissal(group.lemma, group.particle) : null;
        const employee = target.type === 'person' || (target.type === 'concept' && !target.common);
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
            source,
            target,
          });
          relation = canonical.relation;
          if (canonical.reversed) [source, target] = [target, source];
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
        });
      }
    }
    relations.push(...withBuyers(sentenceFacts));
  }
  return { relations, concepts };
}

/** The possessor in "Acme's headquarters" / "Acme's head office" right before a verb. */
function headquartersOwner(toks: Token[], groupStart: number, mentionEndingAt: Map<number, Mention>): Mention | null {
  let k = groupStart - 1;
  if (k >= 0 && !HEADQUARTERS_NOUNS.has(toks[k].normal)) return null;
  if (k >= 1 && toks[k].normal === 'office' && toks[k - 1].normal === 'head') k--;
  const owner = mentionEndingAt.get(k - 1);
  if (!owner || owner.type === 'person') return null;
  const last = toks[k - 1];
  return last.tags.has('Possessive') || /['’]s?$/.test(last.text) || /^['’]/.test(last.post) ? owner : null;
}

/** "Jake sold the café to Priscilla": Priscilla bought the café (instead of "Jake sold to Priscilla"). */
function withBuyers(facts: RelationCandidate[]): RelationCandidate[] {
  const sold = facts.filter((f) => f.relation === 'sold');
  if (sold.length === 0) return facts;
  const out: RelationCandidate[] = [];
  for (const fact of facts) {
    if (fact.relation !== 'sold_to' && fact.relation !== 'sells_to') {
      out.push(fact);
      continue;
    }
    for (const thing of sold.filter((s) => s.source === fact.source)) {
      out.push({ ...fact, source: fact.target, target: thing.target, relation: 'bought', keywords: ['bought', 'purchase'] });
    }
  }
  return out;
}

interface ScanResult {
  objects: ObjectHit[];
  concepts: Mention[];
  date: DateSpan | null;
  /** The last noun after a copula ("friends" in "are no longer friends"). */
  copulaWord: string | null;
}

function scanObjects(
  toks: Token[],
  group: VerbGroup,
  end: number,
  mentionAt: Map<number, Mention>,
  dateAt: Map<number, DateSpan>,
  covered: boolean[],
  base: number,
): ScanResult {
  const objects: ObjectHit[] = [];
  const concepts: Mention[] = [];
  let date: DateSpan | null = null;
  let prep: string | null = null;
  let blocked = false;
  let directTaken = false;
  let nounSinceVerb = false;
  let copulaWord: string | null = null;
  let lastNoun: string | null = null;
  let former = false;
  // Right after an object, "and"/"," continue a list of objects of the same kind.
  let listOpen = false;
  let k = group.end;
  while (k < end) {
    const t = toks[k];
    const continuesList = listOpen;
    listOpen = false;
    const previousPost = k > 0 ? toks[k - 1].post : '';
    if (k > group.end && /[;:()—]/.test(previousPost)) break;
    const dateSpan = dateAt.get(k);
    if (dateSpan) {
      date ??= dateSpan;
      k = dateSpan.end - base;
      prep = null;
      blocked = false;
      continue;
    }
    const mention = mentionAt.get(k);
    if (mention) {
      let next = mention.end - base;
      while (next < toks.length && (isAdverb(toks[next]) || isNegative(toks[next]))) next++;
      const verbFollows = next < toks.length && !covered[next] && isVerbish(toks[next]) && !TRANSPARENT_VERBS.has(toks[next].normal);
      const commaAfter = /,/.test(toks[mention.end - 1 - base].post);
      // "... and Bob works at ...": the name is the subject of the next clause.
      if (verbFollows && !commaAfter) break;
      // "is Maria's husband", "is a former BMW employee": the name qualifies the noun after it.
      const nounAfter = group.copula && !commaAfter ? toks[mention.end - base] : undefined;
      if (nounAfter && !covered[mention.end - base] && nounAfter.tags.has('Noun') && !isVerbish(nounAfter) && !PRONOUNS.has(nounAfter.normal)) {
        let r = mention.end - base;
        while (r < end && !covered[r] && isNounPhraseWord(toks[r]) && !/[,;:]/.test(toks[r - 1].post)) r++;
        const head = singularNoun(toks[r - 1].normal);
        const possessed = toks[mention.end - 1 - base].tags.has('Possessive') || /['’]s$/.test(toks[mention.end - 1 - base].text);
        const earlier = toks.slice(group.end, mention.start - base);
        objects.push({
          mention,
          prep: possessed ? 'of' : 'at',
          copulaWord: head,
          former: earlier.some((p) => FORMER_WORDS.has(p.normal)),
          noun: head,
          possessed,
        });
        directTaken = true;
        k = r;
        continue;
      }
      if (!blocked && (prep !== null || !directTaken || continuesList)) objects.push({ mention, prep, copulaWord, former, noun: lastNoun });
      // "Alice, who lives in Paris, joined ...": the relative clause ends here.
      if (verbFollows) break;
      // "... to David Kim, the CTO of Nimbus": what follows the comma describes the name.
      const after = toks[mention.end - base];
      if (commaAfter && after && !mentionAt.has(mention.end - base) && !['and', 'or'].includes(after.normal)) break;
      if (prep === null) directTaken = true;
      listOpen = !blocked;
      k = mention.end - base;
      continue;
    }
    if (continuesList && (t.normal === 'and' || t.normal === 'or')) {
      listOpen = true;
      k++;
      continue;
    }
    if (CLAUSE_BREAKERS.has(t.normal) && !(t.normal === 'that' && t.tags.has('Determiner'))) break;
    if (covered[k]) {
      k++;
      continue;
    }
    // "works as an engineer at Tesla": the job, then where.
    if (t.normal === 'as' && AS_TRANSPARENT.has(group.lemma) && !blocked) {
      k++;
      continue;
    }
    if (RELATION_PREPOSITIONS.has(t.normal) || BLOCKING_PREPOSITIONS.has(t.normal)) {
      prep = t.normal;
      blocked = BLOCKING_PREPOSITIONS.has(t.normal) || (prep === 'of' && nounSinceVerb && !group.copula);
      k++;
      continue;
    }
    if (isVerbish(t)) {
      if (TRANSPARENT_VERBS.has(t.normal)) {
        // "works at a bakery called Crumbs": the name is the bakery's, after the same preposition.
        directTaken = prep !== null ? directTaken : false;
        k++;
        continue;
      }
      break;
    }
    if (isNounPhraseWord(t)) {
      let r = k;
      while (r < end && !covered[r] && isNounPhraseWord(toks[r]) && (r === k || !/[,;:]/.test(toks[r - 1].post))) r++;
      const phrase = toks.slice(k, r);
      const head = [...phrase].reverse().find((p) => p.tags.has('Noun')) ?? phrase[phrase.length - 1];
      const determined = k > 0 && (toks[k - 1].tags.has('Determiner') || toks[k - 1].tags.has('Possessive') || PRONOUNS.has(toks[k - 1].normal));
      if (group.copula && !blocked) {
        // "is the CEO of X and the founder of Y": each noun names the predicate after it.
        copulaWord = singularNoun(head.normal);
        former = phrase.some((p) => FORMER_WORDS.has(p.normal));
        prep = null;
      }
      const conceptOk =
        !group.copula &&
        !blocked &&
        !determined &&
        phrase.length <= 4 &&
        phrase[phrase.length - 1].tags.has('Noun') &&
        !VAGUE_NOUNS.has(head.normal) &&
        (prep !== null || !directTaken);
      if (conceptOk) {
        const concept: Mention = {
          start: phrase[0].index,
          end: phrase[phrase.length - 1].index + 1,
          name: phrase.map((p) => p.text).join(' '),
          type: 'concept',
          sentence: phrase[0].sentence,
          common: true,
        };
        concepts.push(concept);
        objects.push({ mention: concept, prep, copulaWord, former, noun: lastNoun });
      }
      lastNoun = singularNoun(head.normal);
      if (prep === null) directTaken = true;
      nounSinceVerb = true;
      k = r;
      continue;
    }
    k++;
  }
  return { objects, concepts, date, copulaWord };
}

function isNounPhraseWord(t: Token): boolean {
  if (t.tags.has('Pronoun') || t.tags.has('Determiner') || t.tags.has('QuestionWord') || t.tags.has('Value')) return false;
  // compromise tags "of" in "president of Kaito Games" as part of a noun.
  if (RELATION_PREPOSITIONS.has(t.normal) || BLOCKING_PREPOSITIONS.has(t.normal)) return false;
  if (t.tags.has('Date') || PRONOUNS.has(t.normal) || t.tags.has('Honorific')) return false;
  return t.tags.has('Noun') || t.tags.has('Adjective');
}


function predicateFor(group: VerbGroup, hit: ObjectHit): { relation: string; agent: boolean } | null {
  const { prep } = hit;
  if (group.copula) {
    if (prep === null) return null;
    if (hit.copulaWord) return { relation: snakeCase(`${hit.copulaWord} ${prep}`), agent: false };
    // "Alice is now at Globex": a person at an organization works there.
    if (prep === 'at' && hit.mention.type === 'organization') return { relation: 'works_at', agent: false };
    if (prep === 'in' || prep === 'at' || prep === 'inside') return { relation: 'located_in', agent: false };
    if (prep === 'from') return { relation: 'from', agent: false };
    return null;
  }
  if (group.passive) {
    if (prep === 'by' && SUBJECT_KEEPING_PASSIVES.has(group.lemma)) return { relation: `${verbForms(group.lemma).past}_by`, agent: false };
    // "was laid off by Goldman Sachs": Marcus's job ended.
    const dismissed = prep === 'by' ? dismissal(group.lemma, group.particle) : null;
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
function retype(source: Mention, target: Mention, lemma: string, hit: ObjectHit): void {
  const { prep, copulaWord } = hit;
  if (target.type === 'concept' && !target.common) {
    if (copulaWord && ROLE_NOUNS.has(copulaWord) && prep && ['of', 'at', 'for'].includes(prep)) target.type = 'organization';
    else if (LOCATION_OBJECT_VERBS.has(lemma) && prep && ['in', 'to', 'from', 'at', 'near'].includes(prep)) target.type = 'location';
    else if (ORGANIZATION_OBJECT_VERBS.has(lemma)) target.type = 'organization';
  }
  if (source.type === 'concept' && !source.common && ORGANIZATION_SUBJECT_VERBS.has(lemma)) source.type = 'organization';
}

function nearestDateBefore(dates: DateSpan[], index: number, used: Set<DateSpan>): DateSpan | null {
  let best: DateSpan | null = null;
  for (const d of dates) if (d.end <= index && !used.has(d)) best = d;
  return best;
}

function shiftBackIfFuture(iso: string, span: DateSpan, group: VerbGroup, referenceDate?: Date): string {
  // "joined in March" said in June means the March before, but the library picks the next one.
  // "Maria quit Deloitte in February": a verb whose past is its bare form, without the -s of a
  // third-person present, is the past.
  const bareFormPast = !group.copula && verbForms(group.lemma).past === group.main.normal;
  if (span.explicitYear || !referenceDate || !(group.main.tags.has('PastTense') || group.past || group.ended || bareFormPast)) return iso;
  const date = new Date(iso);
  if (date.getTime() <= referenceDate.getTime()) return iso;
  // "on Monday" → the Monday before; "in March" → the March before.
  if (WEEKDAY.test(span.text)) date.setUTCDate(date.getUTCDate() - 7);
  else date.setUTCFullYear(date.getUTCFullYear() - 1);
  return date.toISOString();
}

function validityOf(
  span: DateSpan | null,
  group: VerbGroup,
  referenceDate?: Date,
): { validAt: string | null; invalidAt: string | null } {
  if (!span) {
    const endedAt = group.ended && referenceDate && !Number.isNaN(referenceDate.getTime()) ? referenceDate.toISOString() : null;
    return { validAt: null, invalidAt: endedAt };
  }
  const start = shiftBackIfFuture(span.startsAt, span, group, referenceDate);
  switch (span.role) {
    case 'range':
      return { validAt: start, invalidAt: span.endsAt };
    case 'until':
      return { validAt: null, invalidAt: start };
    default:
      return group.ended ? { validAt: null, invalidAt: start } : { validAt: start, invalidAt: null };
  }
}
