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
}

const FORMER_WORDS = new Set(['former', 'ex', 'previous', 'erstwhile', 'one-time']);
/** Passives whose subject keeps the fact: "was hired by Globex" is Alice's employment. */
const SUBJECT_KEEPING_PASSIVES = new Set(['hire', 'employ']);
const TRANSPARENT_VERBS = new Set(['called', 'named', 'known', 'titled', 'dubbed']);
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
    const coordinated = subjects.length === 0 && group.start > 0 && COORDINATORS.has(toks[group.start - 1].normal);
    if (coordinated) subjects = previousSubjects;
    const scan = scanObjects(toks, group, n, mentionAt, dateAt, covered, base);
    previousSubjects = subjects;
    for (const c of scan.concepts) concepts.push(c);
    const roles = subjects.length > 0 && !group.negative ? roleFacts(toks, group, mentionAt, base) : [];
    if (subjects.length === 0 || (scan.objects.length === 0 && roles.length === 0)) continue;
    if (group.negative && !group.ended) continue;

    let date = scan.date;
    if (!date) date = nearestDateBefore(input.dates, toks[group.start].index, usedDates);
    // "In June 2025 Alice left Acme and joined Globex": both events happened then.
    if (!date && coordinated) date = previousDate;
    if (date) usedDates.add(date);
    previousDate = date;

    for (const role of roles) {
      const validity = validityOf(date, { ...group, ended: group.ended || role.ended }, input.referenceDate);
      if (role.ended && !validity.invalidAt) continue;
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
    }
    if (roles.length > 0) continue;
    if (LIGHT_VERBS.has(group.lemma) && !group.copula) continue;

    for (const hit of scan.objects) {
      const validity = validityOf(date, hit.former ? { ...group, ended: true } : group, input.referenceDate);
      // "Alice no longer works at Acme" with no date to close it would read as a live fact.
      if ((group.ended || hit.former) && !validity.invalidAt) continue;
      const built = predicateFor(group, hit);
      if (!built) continue;
      const pairs: Array<[Mention, Mention]> = [];
      for (const subject of subjects) {
        if (built.agent) pairs.push([hit.mention, subject]);
        else pairs.push([subject, hit.mention]);
      }
      for (const [source, target] of pairs) {
        if (source === target || source.name.toLowerCase() === target.name.toLowerCase()) continue;
        retype(source, target, group.lemma, hit);
        const theme = THEMES[group.lemma] ?? (hit.copulaWord ? THEMES[hit.copulaWord] : undefined);
        relations.push({
          source,
          target,
          relation: built.relation,
          keywords: [...new Set([built.relation.replace(/_/g, ' '), ...(theme ? [theme] : [])])],
          validAt: validity.validAt,
          invalidAt: validity.invalidAt,
          sentence: input.sentence.index,
        });
      }
    }
  }
  return { relations, concepts };
}

interface ScanResult {
  objects: ObjectHit[];
  concepts: Mention[];
  date: DateSpan | null;
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
      if (!blocked && (prep !== null || !directTaken || continuesList)) objects.push({ mention, prep, copulaWord, former });
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
    if (RELATION_PREPOSITIONS.has(t.normal) || BLOCKING_PREPOSITIONS.has(t.normal)) {
      prep = t.normal;
      blocked = BLOCKING_PREPOSITIONS.has(t.normal) || (prep === 'of' && nounSinceVerb && !group.copula);
      k++;
      continue;
    }
    if (isVerbish(t)) {
      if (TRANSPARENT_VERBS.has(t.normal)) {
        prep = null;
        directTaken = false;
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
        objects.push({ mention: concept, prep, copulaWord, former });
      }
      if (prep === null) directTaken = true;
      nounSinceVerb = true;
      k = r;
      continue;
    }
    k++;
  }
  return { objects, concepts, date };
}

function isNounPhraseWord(t: Token): boolean {
  if (t.tags.has('Pronoun') || t.tags.has('Determiner') || t.tags.has('QuestionWord') || t.tags.has('Value')) return false;
  if (t.tags.has('Date') || PRONOUNS.has(t.normal)) return false;
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
  if (span.explicitYear || !referenceDate || !(group.main.tags.has('PastTense') || group.ended)) return iso;
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
