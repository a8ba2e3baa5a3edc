import { isAdverb, isNegative, type VerbGroup } from './clauses';
import type { Token } from './nlp';
import type { ObjectHit } from './object-scan';
import type { RelationCandidate } from './relations';

/**
 * What the words around a clause, or one fact of it, say about the sentence's facts: "also"
 * (a value beside the slot's others), a couple's words ("are no longer together"), a buyer in
 * "sold X to Y", a thing carried somewhere, a company left for another, both partners of a
 * couple that parted.
 */

/** "are (no longer) together", "called it quits": a couple's words that are no noun. */
export function coupleWord(toks: Token[], group: VerbGroup): string | null {
  let k = group.end;
  while (k < toks.length && (isAdverb(toks[k]) || ['no', 'longer', 'not'].includes(toks[k].normal))) k++;
  if (group.copula && toks[k]?.normal === 'together') return 'together';
  if (group.lemma === 'call' && toks[group.end]?.normal === 'it' && toks[group.end + 1]?.normal === 'quits') return 'quits';
  // "Ruth and Sam got a divorce", "are getting a divorce": they divorced.
  if (group.lemma === 'get' && toks[k]?.normal === 'a' && toks[k + 1]?.normal === 'divorce') return 'divorced';
  // "Mei and Jonathan tied the knot": they married.
  if (group.lemma === 'tie' && toks[k]?.normal === 'the' && toks[k + 1]?.normal === 'knot') return 'married';
  // "finalised their divorce" (open-endings.ts for one of them).
  if (['finalise', 'finalize', 'complete'].includes(group.lemma) && ['their', 'the'].includes(toks[k]?.normal ?? '') && toks[k + 1]?.normal === 'divorce') return 'divorced';
  return null;
}

const ALSO_WORDS = new Set(['also', 'additionally']);

/**
 * "Omar also works at Oxfam", "Felix is now also a member of", "Karl is the treasurer as well",
 * "In addition, …": the clause adds a value to its slot rather than replacing the one it had.
 */
export function saysAlongside(toks: Token[], group: VerbGroup): boolean {
  for (let i = group.start - 1; i >= 0 && (isAdverb(toks[i]) || isNegative(toks[i])); i--) if (ALSO_WORDS.has(toks[i].normal)) return true;
  for (let i = group.start; i < group.end; i++) if (ALSO_WORDS.has(toks[i].normal)) return true;
  for (let i = group.end; i < toks.length && (isAdverb(toks[i]) || toks[i].normal === 'now'); i++) if (ALSO_WORDS.has(toks[i].normal)) return true;
  const words = toks.map((t) => t.normal).join(' ');
  return /\b(?:as well|too)$/.test(words) || /^in addition\b/.test(words);
}

/** "Jake sold the café to Priscilla": Priscilla bought the café (instead of "Jake sold to Priscilla"). */
export function withBuyers(facts: RelationCandidate[]): RelationCandidate[] {
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

/** Verbs that take a thing somewhere: "The Louvre lent the Star of Asia to the Prado". */
const CARRYING_VERBS = new Set(['lend', 'loan', 'return', 'send', 'ship', 'move', 'transfer', 'take', 'bring', 'relocate']);

/** "The Louvre returned the Star of Asia to India": the thing is there now (not the Louvre). */
export function withThingsMoved(facts: RelationCandidate[], group: VerbGroup, objects: ReadonlyArray<Pick<ObjectHit, 'prep' | 'mention'>>): RelationCandidate[] {
  if (!CARRYING_VERBS.has(group.lemma) || group.passive || group.copula) return facts;
  const thing = objects.find((h) => h.prep === null && h.mention.type !== 'person' && !h.mention.common);
  const place = objects.find((h) => h.prep === 'to' && h.mention.type !== 'person');
  if (!thing || !place) return facts;
  const moves = facts.filter((f) => f.target === place.mention);
  if (moves.length === 0) return facts;
  const moved = { ...moves[0], source: thing.mention, target: place.mention, relation: 'moved_to', keywords: ['moved to', 'relocation'] };
  return [...facts.filter((f) => f.target !== place.mention), moved];
}

/** "Ravi moved from Infosys to TCS": a move that leaves a company goes to another one. */
export function withEmployers(facts: RelationCandidate[]): RelationCandidate[] {
  const left = facts.filter((f) => f.relation === 'left');
  if (left.length === 0) return facts;
  return facts.map((f) =>
    f.relation === 'moved_to' && f.target.type !== 'location' && left.some((l) => l.source === f.source) ? { ...f, relation: 'joined', keywords: ['joined', 'employment'] } : f,
  );
}

/**
 * "Lisa dumped Tom", "Tom divorced Lisa", "Jo is Sam's ex-wife": a couple parting, or a
 * relation between two people that ended, is over for both of them.
 */
const PARTINGS = new Set(['divorced', 'broke_up_with', 'fell_out_with']);
const SYMMETRIC = new Set(['married_to', 'dates', 'engaged_to', 'friends_with']);
export function withPartners(facts: RelationCandidate[]): RelationCandidate[] {
  const out = [...facts];
  for (const fact of facts) {
    const parting = PARTINGS.has(fact.relation) || (SYMMETRIC.has(fact.relation) && fact.invalidAt !== null);
    if (!parting || fact.source.type !== 'person' || fact.target.type !== 'person') continue;
    if (facts.some((f) => f.relation === fact.relation && f.source === fact.target && f.target === fact.source)) continue;
    out.push({ ...fact, source: fact.target, target: fact.source });
  }
  return out;
}
