import type { DateSpan } from './dates';
import { isAdverb, isNegative, isVerbish, type VerbGroup } from './clauses';
import {
  BLOCKING_PREPOSITIONS,
  CLAUSE_BREAKERS,
  HONORIFICS,
  PRONOUNS,
  RELATION_PREPOSITIONS,
  VAGUE_NOUNS,
  singularNoun,
} from './lexicon';
import type { Mention } from './mentions';
import type { Token } from './nlp';
import { withoutEx } from './state-nouns';
import { GROUP_HEADS } from './vocabulary-words';
import { BODY_NOUNS, JOB_NOUNS, OFFICE_ROLES } from './vocabulary';

/**
 * What follows a verb group, up to the end of its clause: the names it reaches (each with the
 * preposition before it, the noun phrase before that and what the phrase says of it: "the
 * former CEO of", "a manager at", "the new owner of"), common-noun objects without an article
 * (concepts), and the first date.
 */

export interface ObjectHit {
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
  /** The title written before the name ("dr" in "Dr. Kapoor"). */
  title?: string | null;
  /** The word after the name ("home" in "calls Aarhus home"). */
  next?: string | null;
  /** "is the new owner of": the phrase before the object says its holder is new. */
  fresh?: boolean;
  /** "is a manager at": the copula's noun has an indefinite article. */
  indefinite?: boolean;
}

/** Verbs of sitting on a body, joining or leaving it ("sits on the board of Oxfam"). */
/** Parts of an organization one works at ("the Leeds branch of HSBC"). */
const BRANCH_NOUNS = new Set(['branch', 'office', 'division', 'department', 'subsidiary', 'plant', 'factory', 'store', 'site']);
const BRANCH_VERBS = new Set(['work', 'run', 'manage', 'head', 'lead']);
/** Nouns of a business whose name follows ("a startup called Nimbus"). */
const COMPANY_NOUNS = new Set(['company', 'firm', 'startup', 'start-up', 'business', 'agency', 'consultancy', 'bank', 'charity', 'publisher', 'studio', 'brand', 'chain']);
const BOARD_VERBS = new Set(['sit', 'serve', 'join', 'leave', 'quit', 'resign', 'step', 'stand', 'retire', 'chair']);
/** compromise sometimes tags "the" before a place as a noun ("lives in the Bronx"). */
const ARTICLES = new Set(['the', 'a', 'an']);
/** A degree is a noun ("finished her PhD at Oxford"), not the title before a name. */
const DEGREES = new Set(['phd', 'dphil', 'mba', 'msc', 'ma', 'ba', 'bsc', 'md', 'llm', 'jd']);
const FORMER_WORDS = new Set(['former', 'ex', 'previous', 'erstwhile', 'one-time']);
const TRANSPARENT_VERBS = new Set(['called', 'named', 'known', 'titled', 'dubbed']);
/** "works as an engineer at Tesla": after these verbs "as" + a noun phrase is the job, not a circumstance. */
const AS_TRANSPARENT = new Set(['work', 'serve', 'act', 'start', 'join', 'return', 'stay', 'remain', 'continue', 'begin', 'be']);

export interface ScanResult {
  objects: ObjectHit[];
  concepts: Mention[];
  date: DateSpan | null;
  /** The last noun after a copula ("friends" in "are no longer friends"). */
  copulaWord: string | null;
}

export function scanObjects(
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
  let fresh = false;
  let indefinite = false;
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
      // "a startup called Nimbus", "a book club called Page Turners": the noun before "called" says what the name is.
      const namedNoun = k > 1 ? singularNoun(toks[k - 2].normal) : '';
      if (!mention.common && k > 1 && TRANSPARENT_VERBS.has(toks[k - 1].normal) && (COMPANY_NOUNS.has(namedNoun) || GROUP_HEADS.has(namedNoun))) {
        mention.type = 'organization';
      }
      let next = mention.end - base;
      while (next < toks.length && (isAdverb(toks[next]) || isNegative(toks[next]))) next++;
      // ("Babcock let Tariq go": the "go" completes the verb before the name.)
      const letGo = group.main.normal === 'let' && toks[next]?.normal === 'go';
      const verbFollows = next < toks.length && !covered[next] && isVerbish(toks[next]) && !TRANSPARENT_VERBS.has(toks[next].normal) && !letGo;
      const commaAfter = /,/.test(toks[mention.end - 1 - base].post);
      // "... and Bob works at ...": the name is the subject of the next clause.
      if (verbFollows && !commaAfter) break;
      // "is Maria's husband", "is a former BMW employee": the name qualifies the noun after it.
      // (past the empty term compromise leaves of a possessive "'s")
      const nounAt = mention.end - base + (toks[mention.end - base]?.tags.has('Elided') ? 1 : 0);
      // ("is a regular at the Crown pub": after a preposition the noun is the name's own.)
      const onBody = prep === 'on' && toks[nounAt] !== undefined && BODY_NOUNS.has(singularNoun(toks[nounAt].normal));
      const nounAfter = group.copula && !commaAfter && (prep === null || onBody) ? toks[nounAt] : undefined;
      if (nounAfter && !covered[nounAt] && nounAfter.tags.has('Noun') && !isVerbish(nounAfter) && !PRONOUNS.has(nounAfter.normal)) {
        let r = nounAt;
        while (r < end && !covered[r] && isNounPhraseWord(toks[r]) && !/[,;:]/.test(toks[r - 1].post)) r++;
        // "is Anita's ex-husband": the prefix says the state is over.
        const { noun: head, former: ex } = withoutEx(singularNoun(toks[r - 1].normal));
        const possessed = toks[mention.end - 1 - base].tags.has('Possessive') || /['’]s$/.test(toks[mention.end - 1 - base].text);
        const earlier = toks.slice(group.end, mention.start - base);
        objects.push({
          mention,
          prep: possessed ? 'of' : 'at',
          copulaWord: head,
          former: ex || earlier.some((p) => FORMER_WORDS.has(p.normal)) || toks.slice(mention.end - base, r).some((p) => FORMER_WORDS.has(p.normal)),
          noun: head,
          possessed,
        });
        directTaken = true;
        k = r;
        continue;
      }
      const title = k > 0 && HONORIFICS.has(toks[k - 1].normal) ? toks[k - 1].normal : null;
      const following = toks.slice(mention.end - base, mention.end - base + 2).map((t) => t.normal).join(' ') || null;
      if (!blocked && (prep !== null || !directTaken || continuesList)) objects.push({ mention, prep, copulaWord, former, noun: lastNoun, title, next: following, fresh, indefinite });
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
    // "sailed to Dartmouth and back": a round trip, no second object.
    if (t.normal === 'and' && toks[k + 1]?.normal === 'back') break;
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
    // "got a job as a cashier at Lidl": the role says what the job is; the job noun stays the object's.
    if (t.normal === 'as' && lastNoun !== null && JOB_NOUNS.has(lastNoun) && !blocked) {
      k++;
      while (k < end && !covered[k] && !mentionAt.has(k) && (ARTICLES.has(toks[k].normal) || (isNounPhraseWord(toks[k]) && !RELATION_PREPOSITIONS.has(toks[k].normal)))) k++;
      continue;
    }
    if (RELATION_PREPOSITIONS.has(t.normal) || BLOCKING_PREPOSITIONS.has(t.normal)) {
      prep = t.normal;
      // "of" after a noun names what the noun is of ("the museum of X"), except a body one sits on ("the board of Oxfam").
      blocked =
        BLOCKING_PREPOSITIONS.has(t.normal) ||
        (prep === 'of' &&
          nounSinceVerb &&
          !group.copula &&
          !(lastNoun !== null && BODY_NOUNS.has(lastNoun) && BOARD_VERBS.has(group.lemma)) &&
          // ("works at the Leeds branch of HSBC": the branch is the organization's.)
          !(lastNoun !== null && BRANCH_NOUNS.has(lastNoun) && BRANCH_VERBS.has(group.lemma)));
      k++;
      continue;
    }
    if (isVerbish(t)) {
      if (TRANSPARENT_VERBS.has(t.normal)) {
        // "works at a bakery called Crumbs": the name is the bakery's, after the same preposition.
        // ("owns a bakery in Oslo called Brod": the bakery's, not the place's: the object again.)
        const afterPlace = prep !== null && ['in', 'on', 'near'].includes(prep) && objects.length > 0 && objects[objects.length - 1].mention.type === 'location' && nounSinceVerb;
        if (afterPlace) prep = null;
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
      // "owns a red Mazda", "drives an old Ford": adjectives alone describe the name after them.
      if (mentionAt.has(r) && !/[,;:]/.test(toks[r - 1].post) && phrase.every((p) => p.tags.has('Adjective') && !p.tags.has('Noun') && !FORMER_WORDS.has(p.normal) && p.normal !== 'new')) {
        k = r;
        continue;
      }
      // "gave her yacht Seabird away", "left the band Oasis": the noun, then the name it goes by.
      const namedHead = [...phrase].reverse().find((p) => p.tags.has('Noun'));
      const possessor = k > 0 && (toks[k - 1].tags.has('Possessive') || ['her', 'his', 'their', 'my', 'our', 'its', 'the'].includes(toks[k - 1].normal));
      if (!group.copula && possessor && namedHead && phrase.length <= 2 && mentionAt.has(r) && !/[,;:]/.test(toks[r - 1].post) && !mentionAt.get(r)!.common) {
        lastNoun = singularNoun(namedHead.normal);
        k = r;
        continue;
      }
      const head = [...phrase].reverse().find((p) => p.tags.has('Noun')) ?? phrase[phrase.length - 1];
      const determined = k > 0 && (toks[k - 1].tags.has('Determiner') || toks[k - 1].tags.has('Possessive') || PRONOUNS.has(toks[k - 1].normal));
      // ("is a developer at a startup called Nimbus": the noun before the name is not the copula's.)
      const namedNext = prep !== null && toks[r] !== undefined && TRANSPARENT_VERBS.has(toks[r].normal);
      // "Brian is in hospital", "is in the prison": the institution says where one is kept (one named after "at" is the noun's, below).
      if (group.copula && !blocked && prep === 'in' && (!determined || toks[k - 1].normal === 'the') && phrase.length === 1 && KEPT_IN_BARE.has(head.normal) && toks[r]?.normal !== 'at') {
        const concept = commonConcept(phrase);
        concepts.push(concept);
        objects.push({ mention: concept, prep, copulaWord: null, former, noun: null });
        k = r;
        continue;
      }
      if (group.copula && !blocked && !namedNext) {
        // "is the CEO of X and the founder of Y": each noun names the predicate after it; "the ex-CEO" held it.
        const { noun, former: ex } = withoutEx(singularNoun(head.normal));
        // "the chair of the board at Volvo": the office is the chair's, the board the body it heads.
        const officeOfBody = copulaWord !== null && OFFICE_ROLES.has(copulaWord) && prep === 'of' && BODY_NOUNS.has(noun) && noun !== 'part';
        if (officeOfBody) {
          k = r;
          continue;
        }
        copulaWord = noun;
        former = ex || phrase.some((p) => FORMER_WORDS.has(p.normal));
        fresh = phrase.some((p) => p.normal === 'new');
        indefinite = k > 0 && (toks[k - 1].normal === 'a' || toks[k - 1].normal === 'an');
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
        const concept = commonConcept(phrase);
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

/** Institutions named bare after "in" when someone is kept there ("in hospital", "in prison"). */
const KEPT_IN_BARE = new Set(['hospital', 'rehab', 'prison', 'jail', 'gaol']);

function commonConcept(phrase: Token[]): Mention {
  return {
    start: phrase[0].index,
    end: phrase[phrase.length - 1].index + 1,
    name: phrase.map((p) => p.text).join(' '),
    type: 'concept',
    sentence: phrase[0].sentence,
    common: true,
  };
}

function isNounPhraseWord(t: Token): boolean {
  if (t.tags.has('Pronoun') || t.tags.has('Determiner') || t.tags.has('QuestionWord') || t.tags.has('Value') || ARTICLES.has(t.normal)) return false;
  // compromise tags "of" in "president of Kaito Games" as part of a noun.
  if (RELATION_PREPOSITIONS.has(t.normal) || BLOCKING_PREPOSITIONS.has(t.normal)) return false;
  // A title before a name ("Dr. Chen") is not a noun; a degree ("her PhD at Oxford") is.
  if (t.tags.has('Date') || PRONOUNS.has(t.normal) || (t.tags.has('Honorific') && !DEGREES.has(t.normal))) return false;
  return t.tags.has('Noun') || t.tags.has('Adjective');
}
