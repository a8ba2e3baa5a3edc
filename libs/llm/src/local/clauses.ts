import { BE_FORMS, EVENT_VERBS, RELATION_PREPOSITIONS, RELATIVE_PRONOUNS, STATE_VERBS } from './lexicon';
import type { Mention } from './mentions';
import { lexiconTag, looksCapitalized, verbLemma, type Token } from './nlp';

/**
 * The clause structure the relation step needs, from the library's part-of-speech tags: verb
 * groups ("has recently joined", "was acquired", "used to work") and their subjects.
 */

export interface VerbGroup {
  start: number;
  end: number;
  main: Token;
  lemma: string;
  particle: string | null;
  copula: boolean;
  passive: boolean;
  negative: boolean;
  ended: boolean;
  /** "will step down", "would resign", "might move": not a fact (yet). */
  modal: boolean;
  /** A verb of the group is in the past ("was let go", "had moved"). */
  past: boolean;
}

const PARTICIPLES = new Set('born built made led held sold bought run set won known taught brought kept found given taken written'.split(' '));

export const isVerbish = (t: Token) => t.tags.has('Verb') || t.tags.has('Auxiliary') || t.tags.has('Copula') || t.tags.has('Modal');
// ("aren't", "wasn't": a contraction the tagger leaves whole is negative too.)
export const isNegative = (t: Token) => t.tags.has('Negative') || t.normal === 'not' || t.normal === 'never' || /n['’]t$/.test(t.normal);
const TIME_ADVERBS = new Set(
  'later earlier then soon recently eventually finally also still now currently previously formerly once subsequently ultimately already first initially since'.split(' '),
);
export const isAdverb = (t: Token) => (t.tags.has('Adverb') || TIME_ADVERBS.has(t.normal)) && !isVerbish(t);

export function findVerbGroups(toks: Token[], covered: boolean[]): VerbGroup[] {
  const groups: VerbGroup[] = [];
  const n = toks.length;
  let k = 0;
  while (k < n) {
    if (covered[k] || !isVerbish(toks[k])) {
      k++;
      continue;
    }
    let e = k + 1;
    while (e < n && !covered[e]) {
      const t = toks[e];
      // "is kept in Leeds": compromise reads "kept in" as a phrasal verb; before a name "in" is a preposition.
      if (t.tags.has('Particle') && PREPOSITION_PARTICLES.has(t.normal) && e + 1 < n && (covered[e + 1] || toks[e + 1].tags.has('Determiner') || looksCapitalized(toks[e + 1].text))) break;
      if (isVerbish(t) || t.tags.has('Particle')) e++;
      else if (isAdverb(t) || isNegative(t)) {
        // "has recently joined", "is no longer living in": adverbs between two verbs of the group.
        let v = e + 1;
        while (v < n && v - e < 3 && !covered[v] && (isAdverb(toks[v]) || isNegative(toks[v]))) v++;
        if (v < n && !covered[v] && isVerbish(toks[v]) && !/[,;:]/.test(toks[v - 1].post)) e = v;
        else break;
      } else break;
      if (/[,;:]/.test(toks[e - 1].post)) break;
    }
    const group = describeGroup(toks, k, e);
    if (group) groups.push(group);
    k = e;
  }
  return groups;
}

function describeGroup(toks: Token[], start: number, end: number): VerbGroup | null {
  const span = toks.slice(start, end);
  let mainIndex = -1;
  for (let i = span.length - 1; i >= 0; i--) {
    const t = span[i];
    if (t.tags.has('Verb') && !t.tags.has('Auxiliary') && !t.tags.has('Particle') && !isNegative(t) && !BE_FORMS.has(t.normal)) {
      mainIndex = i;
      break;
    }
  }
  const beIndex = span.findIndex((t) => BE_FORMS.has(t.normal) || t.tags.has('Copula'));
  const copula = mainIndex < 0 && beIndex >= 0;
  if (mainIndex < 0 && !copula) return null;
  const main = copula ? span[beIndex] : span[mainIndex];
  // "got fired", "gets promoted": a passive with "get".
  const getIndex = span.findIndex((t) => GET_FORMS.has(t.normal));
  const auxiliary = beIndex >= 0 ? beIndex : getIndex >= 0 && getIndex < mainIndex && span[mainIndex].tags.has('PastTense') ? getIndex : -1;
  const passive =
    !copula &&
    auxiliary >= 0 &&
    auxiliary < mainIndex &&
    !main.tags.has('Gerund') &&
    (main.tags.has('Passive') || main.tags.has('PastTense') || main.tags.has('Participle') || PARTICIPLES.has(main.normal) || /(?:ed|en)$/.test(main.normal));
  const particles = span.filter((t, i) => i > mainIndex && t.tags.has('Particle')).map((t) => t.normal);
  // "stepped down last month", "has been going out with Mia", "moved away in May": the tagger
  // leaves the particle outside the verb when a preposition, a date or the clause's end follows.
  const trailing = toks[end];
  const afterTrailing = toks[end + 1];
  // ("signed on with Globex", "moved on from Acme": "on" before "with" or "from".)
  const looseOn = trailing?.normal === 'on' && ['with', 'from'].includes(afterTrailing?.normal ?? '');
  if (
    particles.length === 0 &&
    mainIndex >= 0 &&
    trailing !== undefined &&
    (LOOSE_PARTICLES.has(trailing.normal) || looseOn) &&
    !/[,;:]/.test(span[span.length - 1].post) &&
    (afterTrailing === undefined || /[.,;:!?]/.test(trailing.post) || afterTrailing.tags.has('Preposition') || afterTrailing.tags.has('Date') || ['last', 'this', 'in', 'on', 'with', 'of', 'from', 'at', 'after', 'before', 'when'].includes(afterTrailing.normal))
  ) {
    particles.push(trailing.normal);
  }
  const normals = span.map((t) => t.normal);
  const before = toks.slice(Math.max(0, start - 3), start).map((t) => t.normal).join(' ');
  const after = toks.slice(end).map((t) => t.normal).join(' ');
  const usedTo = normals.some((w, i) => w === 'used' && normals[i + 1] === 'to');
  // "stopped working at Acme": the fact is the gerund's, and it ended.
  const stoppedDoing =
    main.tags.has('Gerund') &&
    span.some((t, i) => i < mainIndex && (STOPPING_VERBS.has(t.normal) || (GIVING.has(t.normal) && span[i + 1]?.normal === 'up')));
  const ended =
    usedTo ||
    stoppedDoing ||
    /\b(?:no longer|not any longer)\b/.test(normals.join(' ')) ||
    /\bno longer\b|\bformerly\b|\bpreviously\b/.test(before) ||
    /\b(?:anymore|any more|any longer)\b/.test(after) ||
    // "is no longer the CEO": after a copula the phrase follows the verb.
    /^(?:no longer|not any longer)\b/.test(after);
  const negative = span.some(isNegative) || /\bnever\b/.test(before);
  // "Mia is moving to York", "Ravi is leaving Infosys": an event in progress or arranged, not done.
  const progressiveEvent = main.tags.has('Gerund') && !stoppedDoing && span.some((t, i) => i < mainIndex && BE_FORMS.has(t.normal)) && EVENT_VERBS.has(verbLemma(main));
  const modal = progressiveEvent || span.some((t) => MODALS.has(t.normal)) || /\b(?:going|plans?|planning|wants?|hopes?|hoping|intends?) to$/.test(before);
  // "was let go by Alibaba": the phrasal verb is "let go".
  const letGo = (main.normal === 'let' && particles.includes('go')) || (main.normal === 'go' && normals.includes('let'));
  // "was made redundant by Google": the adjective completes the verb, as a particle would.
  const redundant = !copula && main.normal === 'made' && toks[end]?.normal === 'redundant';
  return {
    start,
    end,
    main,
    lemma: copula ? 'be' : letGo ? 'let go' : stoppedDoing ? gerundLemma(main.normal) : verbLemma(main),
    particle: redundant ? 'redundant' : letGo || particles.length === 0 ? null : particles.join(' '),
    copula,
    passive: passive || (letGo && beIndex >= 0),
    negative,
    ended,
    modal,
    past: span.some((t) => t.tags.has('PastTense')),
  };
}

const GET_FORMS = new Set(['get', 'gets', 'got', 'gotten', 'getting']);
const LOOSE_PARTICLES = new Set(['out', 'down', 'away', 'off']);
const MODALS = new Set(['will', 'would', 'may', 'might', 'could', 'should', 'shall', "'ll"]);

const COMPANION_POSSESSIVES = new Set(['his', 'her', 'their']);
const isCommonHead = (t: Token) => t.tags.has('Noun') && !t.tags.has('ProperNoun') && !looksCapitalized(t.text) && !t.tags.has('Pronoun');

const PREPOSITION_PARTICLES = new Set(['in', 'on', 'at', 'to', 'from', 'into', 'onto']);

const APPOSITION_ADVERBS = new Set(['formerly', 'previously', 'once', 'former', 'late']);
/** "gave up volunteering". */
const GIVING = new Set(['gave', 'give', 'gives', 'given']);
const STOPPING_VERBS = new Set(['stopped', 'stop', 'stops', 'quit', 'quits', 'ceased', 'cease', 'ceases']);

/** "working" → "work", "living" → "live", "driving" → "drive" (the lexicons decide between the two). */
function gerundLemma(gerund: string): string {
  const stem = gerund.replace(/ing$/, '');
  if (STATE_VERBS.has(stem) || EVENT_VERBS.has(stem)) return stem;
  if (STATE_VERBS.has(`${stem}e`) || EVENT_VERBS.has(`${stem}e`)) return `${stem}e`;
  if (lexiconTag(`${stem}e`) === 'Infinitive' && lexiconTag(stem) !== 'Infinitive') return `${stem}e`;
  // "running", "shopping": the doubled consonant of a short verb.
  if (/([^aeiou])\1$/.test(stem) && lexiconTag(stem.slice(0, -1)) === 'Infinitive') return stem.slice(0, -1);
  return stem;
}

/** ", who lives in Paris," — local `[from, to)` of relative clauses set off by commas. */
function relativeClauses(toks: Token[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (let k = 1; k < toks.length; k++) {
    if (!['who', 'which', 'whom', 'whose'].includes(toks[k].normal) || !/,/.test(toks[k - 1].post)) continue;
    let to = k;
    while (to < toks.length - 1 && !/[,;:]/.test(toks[to].post)) to++;
    spans.push([k, to + 1]);
  }
  return spans;
}

export function findSubjects(toks: Token[], groupStart: number, mentionEndingAt: Map<number, Mention>): Mention[] {
  let k = groupStart - 1;
  while (k >= 0 && (isAdverb(toks[k]) || isNegative(toks[k]))) k--;
  // "Anna Lee (34) lives in Leeds": the parenthesis stands beside the name.
  if (k > 0 && (/\)/.test(toks[k].post) || /^\(.*\)$/.test(toks[k].text))) {
    let open = k;
    while (open > 0 && !/\(/.test(toks[open].pre) && !/^\(/.test(toks[open].text)) open--;
    if (open > 0 && (/\(/.test(toks[open].pre) || /^\(/.test(toks[open].text))) k = open - 1;
  }
  if (k < 0) return [];
  const clause = relativeClauses(toks).find(([from, to]) => k >= from && k < to && !(groupStart >= from && groupStart < to));
  if (clause) k = clause[0] - 1;
  if (k < 0) return [];
  // "Mark Henderson and his family moved …": the named one is the subject.
  if (!mentionEndingAt.has(k) && k >= 3 && toks[k].tags.has('Noun') && COMPANION_POSSESSIVES.has(toks[k - 1].normal) && toks[k - 2].normal === 'and') {
    // ("Kemi and her family": a name the tagger left untyped goes with a family too.)
    const named = mentionEndingAt.get(k - 3);
    if (named && (named.type === 'person' || (named.type === 'concept' && !named.common && toks[named.start - toks[0].index - 1]?.normal !== 'the'))) k -= 3;
  }
  // "The Starry Sky painting belongs to …": a name before its common noun.
  if (!mentionEndingAt.has(k) && k >= 1 && isCommonHead(toks[k])) {
    const named = mentionEndingAt.get(k - 1);
    const last = toks[k - 1];
    if (named && !/[^\s]/.test(last.post) && !last.tags.has('Possessive') && !/['’]s$/.test(last.text) && named.start - toks[0].index - 1 >= 0) {
      const opener = toks[named.start - toks[0].index - 1];
      if (opener.tags.has('Determiner')) k -= 1;
    }
  }
  let first = mentionEndingAt.get(k);
  if (first && /,/.test(toks[k].post)) {
    // "Tesla, the car maker led by Elon Musk, opened ...": the name before the parenthesis.
    for (let j = first.start - toks[0].index - 1; j >= Math.max(0, k - 15); j--) {
      if (!/,/.test(toks[j].post)) continue;
      const opener = toks[j + 1];
      const outer = mentionEndingAt.get(j);
      // (", formerly of Infosys,": an apposition that opens with an adverb of time.)
      if (outer && opener && (opener.tags.has('Determiner') || opener.tags.has('Possessive') || RELATIVE_PRONOUNS.has(opener.normal) || APPOSITION_ADVERBS.has(opener.normal))) {
        first = outer;
      }
      break;
    }
  }
  if (!first && RELATIVE_PRONOUNS.has(toks[k].normal)) first = mentionEndingAt.get(k - 1);
  if (!first && /,/.test(toks[k].post)) {
    // "Alice, a software engineer, works ..." / "Alice, who lives in Paris, joined ..."
    for (let j = k - 1; j >= Math.max(0, k - 15); j--) {
      if (/,/.test(toks[j].post)) {
        first = mentionEndingAt.get(j);
        break;
      }
    }
  }
  if (!first) return [];
  // "Analysts at Goldman Sachs expect ...": a name after a preposition is not the subject.
  // So is one after "of the" ("A copy of the Mona Lisa was sent …": the copy was).
  let headAt = first.start - toks[0].index - 1;
  if (toks[headAt]?.normal === 'the' && toks[headAt - 1]?.normal === 'of') headAt--;
  const head = toks[headAt];
  if (head && RELATION_PREPOSITIONS.has(head.normal) && !/,/.test(head.post)) return [];
  const subjects = [first];
  let start = first.start - toks[0].index;
  // "Alice and Bob founded ...", "Alice, Bob and Carol ..."
  for (;;) {
    let j = start - 1;
    if (j < 0) break;
    if (toks[j].normal === 'and' || toks[j].normal === 'or') j--;
    else if (!/,/.test(toks[j].post)) break;
    const previous = mentionEndingAt.get(j);
    if (!previous) break;
    // "Bob lives in Paris and Carol works ...": Paris is an object, not a second subject.
    const before = toks[previous.start - toks[0].index - 1];
    if (before && (RELATION_PREPOSITIONS.has(before.normal) || isVerbish(before))) break;
    subjects.unshift(previous);
    start = previous.start - toks[0].index;
  }
  return subjects;
}
