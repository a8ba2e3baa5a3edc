import type { VerbGroup } from './clauses';
import { ROLE_NOUNS, singularNoun } from './lexicon';
import type { Mention } from './mentions';
import type { Token } from './nlp';

/**
 * Roles taken and given up: "stepped down as CEO of Acme", "retired as CTO of Acme", "became
 * CEO of Globex", "was named chair of Initech", "was replaced by Bob as CEO of Acme". The fact is
 * the role itself (`ceo_of`), the same predicate "X is the CEO of Y" gives, so that giving the
 * role up ends that fact and taking one supersedes it (temporal supersession compares
 * predicates, not verbs).
 */

export interface RoleFact {
  /** Who holds (or held) the role; null: the clause's subject. */
  holder: Mention | null;
  organization: Mention;
  relation: string;
  /** The clause says the role ended (its date is when). */
  ended: boolean;
}

const LEAVING_VERBS = new Set(['step', 'resign', 'retire', 'leave', 'quit']);
const TAKING_VERBS = new Set(['become', 'appoint', 'name', 'elect', 'promote', 'take', 'serve', 'join', 'return', 'hire']);
const FILLERS = new Set(['down', 'over', 'up', 'as', 'the', 'a', 'an', 'its', 'their', 'new', 'interim', 'acting']);
const ROLE_PREPOSITIONS = new Set(['of', 'at', 'for']);

/** The role facts of one verb group, from the words right after it. */
export function roleFacts(toks: Token[], group: VerbGroup, mentionAt: Map<number, Mention>, base: number): RoleFact[] {
  if (group.lemma === 'replace' && group.passive) return replacement(toks, group.end, mentionAt, base);
  const leaving = LEAVING_VERBS.has(group.lemma);
  if (!leaving && !TAKING_VERBS.has(group.lemma)) return [];
  const role = rolePhrase(toks, group.end, mentionAt);
  return role ? [{ holder: null, organization: role.organization, relation: role.relation, ended: leaving }] : [];
}

/** "[as] [the] CEO of Acme" from `k`: the predicate and the organization. */
function rolePhrase(toks: Token[], k: number, mentionAt: Map<number, Mention>): { relation: string; organization: Mention } | null {
  while (k < toks.length && FILLERS.has(toks[k].normal) && !mentionAt.has(k)) k++;
  const role = toks[k] ? singularNoun(toks[k].normal) : '';
  if (!ROLE_NOUNS.has(role) || mentionAt.has(k)) return null;
  const prep = toks[k + 1];
  if (!prep || !ROLE_PREPOSITIONS.has(prep.normal)) return null;
  const organization = mentionAt.get(k + 2);
  if (!organization) return null;
  if (organization.type === 'concept' && !organization.common) organization.type = 'organization';
  return { relation: `${role.replace(/-/g, '_')}_of`, organization };
}

/** "X was replaced by Y as CEO of Acme": Y took the role X gave up. */
function replacement(toks: Token[], k: number, mentionAt: Map<number, Mention>, base: number): RoleFact[] {
  if (toks[k]?.normal !== 'by') return [];
  const successor = mentionAt.get(k + 1);
  if (!successor) return [];
  const role = rolePhrase(toks, successor.end - base, mentionAt);
  if (!role) return [];
  return [
    { holder: null, organization: role.organization, relation: role.relation, ended: true },
    { holder: successor, organization: role.organization, relation: role.relation, ended: false },
  ];
}
