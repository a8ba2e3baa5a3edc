import type { VerbGroup } from './clauses';
import { singularNoun } from './lexicon';
import { OFFICE_ROLES } from './vocabulary-words';
import type { Mention } from './mentions';
import type { Token } from './nlp';
import type { ObjectHit } from './object-scan';

/**
 * Changes that name no object: "Priya retired last year", "She quit", "Jonas graduated in June",
 * "Anna got divorced", "Max moved away", "Kate broke up with her boyfriend", "Maria sold her car",
 * "Tom lost his job", "Ella left the band". English leaves the object out (or names it by a
 * common noun) when it is the one the subject has: the verb says which of the subject's states
 * ended (retiring ends a job and the roles held in it, a divorce a marriage, selling what one
 * owns). The ending is named by its verb; the store ends the subject's live facts of the slot
 * the verb ends (libs/ingest/src/graph/temporal-rules.ts, `endedOpenlyBy`), and, for slots one
 * holds several of (things owned, clubs), only when the subject has one, which the earlier text
 * named with the noun this one uses, if it uses one ("sold the pub" ends "owns the Red Lion pub",
 * "sold her bike" does not end "owns a Honda Civic").
 */

/** Common nouns that name the subject's own state of a kind: "quit her job", "left the band". */
const KINDS: Readonly<Record<string, string>> = {
  job: 'job', work: 'job', position: 'job', post: 'job', company: 'job', firm: 'job', employer: 'job', workplace: 'job', career: 'job',
  band: 'group', club: 'group', party: 'group', choir: 'group', union: 'group', team: 'group', orchestra: 'group', society: 'group', group: 'group', army: 'group', navy: 'group',
  husband: 'spouse', wife: 'spouse', spouse: 'spouse',
  boyfriend: 'partner', girlfriend: 'partner', partner: 'partner', fiance: 'partner', fiancee: 'partner', 'fiancé': 'partner', 'fiancée': 'partner',
  school: 'school', university: 'school', college: 'school', course: 'school', degree: 'school', studies: 'school', phd: 'school',
  house: 'home', home: 'home', flat: 'home', apartment: 'home', city: 'home', country: 'home', town: 'home', area: 'home',
  internship: 'job', apprenticeship: 'job', traineeship: 'job', placement: 'job', contract: 'job', notice: 'notice', resignation: 'notice', retirement: 'retirement',
  engagement: 'engagement', marriage: 'marriage', relationship: 'partner', divorce: 'divorce',
  prison: 'custody', jail: 'custody', custody: 'custody', hospital: 'hospital', rehab: 'hospital',
  car: 'thing', boat: 'thing', bike: 'thing', motorbike: 'thing', shop: 'thing', business: 'thing', restaurant: 'thing', pub: 'thing',
  van: 'thing', truck: 'thing', lorry: 'thing', scooter: 'thing', motorcycle: 'thing', yacht: 'thing', horse: 'thing', cottage: 'thing', villa: 'thing',
  bakery: 'thing', cafe: 'thing', 'café': 'thing', farm: 'thing', painting: 'thing', share: 'thing', stake: 'thing', property: 'thing',
};

/** Verbs that take a thing down from where it stood with "down" ("was taken down", "was pulled down"). */
const TAKING_DOWN = new Set(['take', 'pull', 'tear', 'knock', 'bring']);
/** Verbs that do so alone ("was toppled", "was removed"). */
const REMOVING = new Set(['topple', 'dismantle', 'demolish', 'remove']);

/** "went freelance", "went self-employed". */
const SELF_EMPLOYED = new Set(['freelance', 'self-employed']);

/** What "leave" / "quit" of a kind of thing ends. */
const LEAVING: Readonly<Record<string, string>> = { job: 'left_job', group: 'left_group', spouse: 'broke_up', partner: 'broke_up', school: 'dropped_out', home: 'moved_away' };

/** Copula states that say one ended: "Anna is divorced now", "Kate is single again", "Ken is retired". */
const ENDED_STATES: Readonly<Record<string, string>> = {
  divorced: 'divorced',
  separated: 'separated',
  single: 'broke_up',
  retired: 'retired',
  unemployed: 'left_job',
  jobless: 'left_job',
  widowed: 'widowed',
  // "was released from prison" (the participle read as an adjective).
  released: 'released',
  discharged: 'discharged',
  fired: 'fired',
  sacked: 'fired',
};

/**
 * The ending a clause without a named object states, or null. `objects` are the common-noun and
 * name objects the scan found (a named object leaves the clause to the transitive rules).
 */
export interface OpenEnding {
  relation: string;
  /** The common noun that named what ended ("car" in "sold her car"), if one did. */
  noun: string | null;
}

export function openEnding(toks: Token[], group: VerbGroup, objects: ObjectHit[], copulaWord: string | null): OpenEnding | null {
  // "Hilda is no longer the treasurer": the role, wherever she held it.
  if (group.copula && group.ended && copulaWord && OFFICE_ROLES.has(copulaWord) && !objects.some((hit) => !hit.mention.common)) return { relation: 'stepped_down', noun: copulaWord };
  const relation = endingVerb(toks, group, objects, copulaWord);
  if (relation === 'stepped_down') return { relation, noun: roleAfterAs(toks, group.end) };
  return relation ? { relation, noun: objectNoun(toks, group) } : null;
}

/** "stepped down as a trustee (of the charity)": the role given up, so that only it ends. */
function roleAfterAs(toks: Token[], from: number): string | null {
  let k = from;
  while (k < toks.length && k < from + 3 && toks[k].normal !== 'as') k++;
  if (toks[k]?.normal !== 'as') return null;
  for (k++; k < toks.length && ['a', 'an', 'the', 'its', 'their', 'his', 'her'].includes(toks[k].normal); k++);
  const word = toks[k]?.normal;
  return word && /^[a-z][a-z-]*$/.test(word) && toks[k].tags.has('Noun') ? singularNoun(word) : null;
}

function endingVerb(toks: Token[], group: VerbGroup, objects: ObjectHit[], copulaWord: string | null): string | null {
  if (group.modal || (group.negative && !group.ended)) return null;
  // "Acme now sells cars", "Priya retires next month": a habit or a plan has ended nothing yet
  // (the present's third person; "they quit" may be either tense).
  if (!group.past && !group.copula && !group.ended && group.start === group.end - 1 && group.main.tags.has('PresentTense') && /[^s]s$/.test(group.main.normal)) return null;
  // ("quit Leah's job": a possessive name qualifies the noun after it.)
  const base = toks[0]?.index ?? 0;
  const possessive = (hit: ObjectHit) => /['’]s?$/.test(toks[hit.mention.end - 1 - base]?.text ?? '') || toks[hit.mention.end - 1 - base]?.tags.has('Possessive') === true;
  // "Kai went freelance (after ten years at the BBC)": no employer now, whatever else is named.
  if (['go', 'turn'].includes(group.lemma) && !group.negative && SELF_EMPLOYED.has(nextWord(toks, group.end) ?? '')) return 'left_job';
  objects = objects.filter((hit) => hit.mention.common || !possessive(hit));
  // "The statue was taken down for repairs", "was toppled", "was removed": no longer where it
  // stood, whatever it was taken down for (a named place it was removed from is removed_from).
  if (group.passive && !objects.some((hit) => !hit.mention.common) && ((TAKING_DOWN.has(group.lemma) && (group.particle ?? toks[group.end]?.normal) === 'down') || REMOVING.has(group.lemma))) return 'taken_down';
  if (objects.some((hit) => !hit.mention.common)) return null;
  const kind = objectKind(toks, group);
  // "quit smoking", "retired from politics": an object of no kind is something else that ended.
  if (kind === null && objects.length > 0) return null;
  const phrasal = group.particle ? `${group.lemma} ${group.particle}` : group.lemma;
  // "stopped working", "gave up volunteering", "no longer works": the gerund's state ended.
  if (group.ended && !group.copula) {
    if (group.lemma === 'work') return kind === null || kind === 'job' ? 'left_job' : null;
    if (group.lemma === 'volunteer') return 'stopped_volunteering';
    if (group.lemma === 'study') return kind === null || kind === 'school' ? 'stopped_studying' : null;
    return null;
  }
  if (group.copula) {
    const word = copulaWord ?? toks[group.end]?.normal ?? null;
    const next = nextWord(toks, group.end);
    return (word && ENDED_STATES[word]) || (next && ENDED_STATES[next]) || (next === 'out' && toks[group.end + 1]?.normal === 'of' && toks[group.end + 2]?.normal === 'work' ? 'left_job' : null);
  }
  if (group.passive) {
    // "Marcus was fired", "Mei was let go in March", "Ahmed was discharged on Friday".
    if (['fire', 'sack', 'dismiss'].includes(group.lemma)) return 'fired';
    if (phrasal === 'lay off' || phrasal === 'let go' || phrasal === 'make redundant') return 'laid_off';
    if (group.lemma === 'release' || group.lemma === 'free') return kind === null || kind === 'custody' || kind === 'hospital' ? 'released' : null;
    if (group.lemma === 'discharge') return kind === null || kind === 'hospital' ? 'discharged' : null;
    if (group.lemma === 'divorce') return 'divorced';
    // "Olga was widowed last winter".
    if (group.lemma === 'widow') return 'widowed';
    // "The Sea Breeze was moved away last winter".
    if (['move', 'take', 'tow', 'relocate'].includes(group.lemma) && (group.particle === 'away' || toks[group.end]?.normal === 'away')) return 'moved_away';
    return null;
  }
  // "Priya stepped down last month" (the tagger leaves "down" outside the verb).
  if ((group.lemma === 'step' || group.lemma === 'stand') && ['down', 'aside'].includes(group.particle ?? toks[group.end]?.normal ?? '')) return 'stepped_down';
  // "handed in his notice", "gave notice", "tendered her resignation".
  if (kind === 'notice' && ['hand', 'give', 'submit', 'tender', 'hand in'].includes(phrasal)) return 'resigned';
  // "took early retirement", "went into retirement".
  if (kind === 'retirement' && ['take', 'go', 'enter'].includes(group.lemma)) {
    // ("took early retirement from the choir": the group, not a job.)
    const from = toks.findIndex((t, i) => i >= group.end && i < group.end + 5 && t.normal === 'from');
    const left = from >= 0 ? nounAt(toks, from + 1) : null;
    return left === null || KINDS[left] === 'job' ? 'retired' : KINDS[left] === 'group' ? 'left_group' : null;
  }
  // "finished her internship", "completed his degree", "ended their engagement".
  // ("finalised their divorce": the marriage is over.)
  if (['finish', 'complete', 'end', 'conclude', 'finalise', 'finalize'].includes(group.lemma)) {
    if (kind === 'divorce') return group.lemma === 'end' ? null : 'divorced';
    return kind === 'job' ? 'left_job' : kind === 'school' ? 'graduated' : kind === 'engagement' || kind === 'partner' ? 'broke_up' : kind === 'marriage' ? 'divorced' : null;
  }
  // "called off their engagement", "broke off the engagement".
  if ((group.lemma === 'call' || group.lemma === 'break') && (group.particle === 'off' || toks[group.end]?.normal === 'off') && kind === 'engagement') return 'broke_up';
  switch (phrasal) {
    case 'retire':
      // "retired from the orchestra": a group; otherwise a job.
      return kind === null || kind === 'job' ? 'retired' : kind === 'group' ? 'left_group' : null;
    case 'quit':
    case 'resign':
      if (kind === null) return group.lemma === 'quit' ? 'quit' : 'resigned';
      return LEAVING[kind] ?? null;
    case 'leave':
      return kind ? LEAVING[kind] ?? null : null;
    case 'lose':
      return kind === 'job' ? 'laid_off' : null;
    case 'step down':
    case 'stand down':
      return 'stepped_down';
    case 'graduate':
      return kind === null || kind === 'school' ? 'graduated' : null;
    case 'drop out':
      // "dropped out of the choir": a group; otherwise a course of study.
      return kind === 'group' ? 'left_group' : 'dropped_out';
    case 'divorce':
      return kind === null || kind === 'spouse' ? 'divorced' : null;
    case 'get':
      // "Anna got divorced", "They got separated".
      return toks[group.end]?.normal === 'divorced' ? 'divorced' : toks[group.end]?.normal === 'separated' ? 'separated' : null;
    case 'separate':
    case 'split':
    case 'split up':
    case 'break up':
    case 'dump':
      if (kind === 'spouse') return group.lemma === 'dump' ? 'broke_up' : 'separated';
      return kind === null || kind === 'partner' ? 'broke_up' : null;
    // "Hiroshi sold up and retired": sold what he had (his business, his home).
    case 'sell up':
      return kind === null || kind === 'thing' || kind === 'home' ? 'sold' : null;
    case 'sell':
    case 'sell off':
    case 'auction':
    case 'auction off':
      // ("sold up and retired": the tagger may read "up" as a preposition.)
      if (group.lemma === 'sell' && toks[group.end]?.normal === 'up' && (kind === null || kind === 'thing' || kind === 'home')) return 'sold';
      return kind === 'thing' || kind === 'home' || (kind === null && soldIt(toks, group)) ? 'sold' : null;
    case 'move':
    case 'move away':
    case 'move out':
    case 'emigrate':
    case 'relocate':
      // "Max moved away", "Ivy moved abroad", "Tom moved house", "Lena emigrated in 2024" (not "moved in with", "moved on").
      if (group.particle === 'on' || group.particle === 'in' || group.particle === 'up' || group.particle === 'over') return null;
      if (kind === 'home' || group.particle === 'away' || group.particle === 'out' || group.lemma === 'emigrate') return 'moved_away';
      return nextWord(toks, group.end) === 'abroad' || nextWord(toks, group.end) === 'away' ? 'moved_away' : null;
  }
  return null;
}

const SKIPPED = new Set(['from', 'with', 'in', 'into', 'off', 'its', 'early', 'out', 'of', 'up', 'away', 'as', 'his', 'her', 'their', 'the', 'my', 'our', 'a', 'an', 'old', 'new', 'first', 'second', 'only', 'current', 'full-time', 'part-time']);

/** The kind of the clause's direct object or "from"/"with"/"out of" object, when it is a common noun of one. */
function objectKind(toks: Token[], group: VerbGroup): string | null {
  const noun = objectNoun(toks, group);
  return noun ? KINDS[noun] : null;
}

/** The common noun of a kind that names the object ("car" in "sold her old car"). */
function objectNoun(toks: Token[], group: VerbGroup): string | null {
  return nounAt(toks, group.end);
}

function nounAt(toks: Token[], start: number): string | null {
  let k = start;
  while (k < toks.length && SKIPPED.has(toks[k].normal)) {
    if (/[,;:.]/.test(toks[k].post)) return null;
    k++;
  }
  // "sold her Honda", "left her job at the bank": the first noun of the phrase ("the St.
  // Paul's choir": past the name that owns it).
  let owner = 0;
  for (let j = k; j < Math.min(toks.length, k + 3 + owner); j++) {
    const word = singularNoun(toks[j].normal);
    if (KINDS[word]) return word;
    if (KINDS[toks[j].normal]) return toks[j].normal;
    if (toks[j].tags.has('Elided') || (/^\p{Lu}/u.test(toks[j].text) && (toks[j].tags.has('Possessive') || toks[j].tags.has('Abbreviation') || /['’]s$/.test(toks[j].text)) && owner < 3)) {
      owner++;
      continue;
    }
    if (!toks[j].tags.has('Adjective') && !toks[j].tags.has('Noun')) break;
    if (/[,;:.]/.test(toks[j].post)) break;
  }
  return null;
}

function nextWord(toks: Token[], k: number): string | null {
  return toks[k]?.normal ?? null;
}

/** "Maria sold it", "sold them last year": the thing sold is the one the subject had. */
function soldIt(toks: Token[], group: VerbGroup): boolean {
  return ['it', 'them'].includes(toks[group.end]?.normal ?? '');
}

/**
 * "Anya's husband died in 2024", "Her wife passed away": the possessor's marriage (or
 * relationship) ended with the partner's death. Returns the possessor, or null.
 */
export function bereaved(toks: Token[], group: VerbGroup, mentionEndingAt: ReadonlyMap<number, Mention>): Mention | null {
  const dying = group.lemma === 'die' || (group.lemma === 'pass' && (group.particle === 'away' || toks[group.end]?.normal === 'away'));
  if (!dying || group.modal || group.negative) return null;
  let k = group.start - 1;
  while (k >= 0 && toks[k].tags.has('Adverb')) k--;
  // "Amir's wife Leila passed away": past the spouse's own name.
  const named = mentionEndingAt.get(k);
  if (named?.type === 'person') k = named.start - toks[0].index - 1;
  if (k < 1 || KINDS[toks[k].normal] !== 'spouse' && KINDS[toks[k].normal] !== 'partner') return null;
  const owner = mentionEndingAt.get(k - 1);
  const last = toks[k - 1];
  if (!owner || !(last.tags.has('Possessive') || /['’]s?$/.test(last.text))) return null;
  return owner;
}

/** Verbs that say a divorce became final: "was finalised", "came through", "went through", "was granted". */
const DIVORCE_FINAL = new Set(['finalise', 'finalize', 'grant', 'complete', 'come', 'go']);

/**
 * "Sophie and Daniel's divorce was finalised in April", "Ruth's divorce came through": the
 * possessors' marriage is over. The names before "divorce" (one or a couple; "their": `couple`,
 * the clause before's two subjects), else none.
 */
export function divorcedBy(toks: Token[], group: VerbGroup, mentionEndingAt: ReadonlyMap<number, Mention>, couple: readonly Mention[] = []): Mention[] {
  if (!DIVORCE_FINAL.has(group.lemma) || group.modal || group.negative) return [];
  if ((group.lemma === 'come' || group.lemma === 'go') && (group.particle ?? toks[group.end]?.normal) !== 'through') return [];
  let k = group.start - 1;
  while (k >= 0 && (toks[k].tags.has('Adverb') || toks[k].tags.has('Auxiliary'))) k--;
  if (k < 1 || toks[k].normal !== 'divorce') return [];
  // ("Ben and Ruth separated, and their divorce came through": the couple the clause before named.)
  if (toks[k - 1].normal === 'their') return couple.length === 2 ? [...couple] : [];
  const owner = mentionEndingAt.get(k - 1);
  const last = toks[k - 1];
  if (!owner || owner.type === 'location' || !(last.tags.has('Possessive') || /['’]s?$/.test(last.text))) return [];
  const first = toks[owner.start - toks[0].index - 1]?.normal === 'and' ? mentionEndingAt.get(owner.start - toks[0].index - 2) : undefined;
  return first ? [first, owner] : [owner];
}
