import type { VerbGroup } from './clauses';
import { HONORIFICS, ROLE_NOUNS, singularNoun } from './lexicon';
import type { Mention } from './mentions';
import type { Token } from './nlp';
import { withoutEx } from './state-nouns';
import { isSomeone, OFFICE_ROLES, OFFICES } from './vocabulary';

/**
 * Roles taken and given up: "stepped down as CEO of Acme", "retired as CTO of Acme", "became
 * CEO of Globex", "was named chair of Initech", "was replaced by Bob as CEO of Acme", "Dan
 * replaced Priya as CTO", "Initech named Sarah as its new CEO, replacing John", "Soylent's board
 * removed Ken as CEO", "was promoted from CTO to CEO of Bluth", "Our CTO is Priya". The fact is
 * the role itself (`ceo_of`), the same predicate "X is the CEO of Y" gives, so that giving the
 * role up ends that fact and taking one supersedes it (temporal supersession compares
 * predicates, not verbs). A role of no named organization ("our CTO", "resigned as treasurer")
 * is `has_role` with the role as its object.
 */

export interface RoleFact {
  /** Who holds (or held) the role; null: the clause's subject. */
  holder: Mention | null;
  /** The organization, or the role itself for `has_role`. */
  organization: Mention;
  relation: string;
  /** The clause says the role ended (its date is when). */
  ended: boolean;
  /** A `has_role` object made from the role's words: an entity of its own. */
  concept?: Mention;
}

const LEAVING_VERBS = new Set(['step', 'resign', 'retire', 'leave', 'quit', 'lose', 'relinquish', 'vacate']);
const TAKING_VERBS = new Set(['become', 'appoint', 'name', 'elect', 'promote', 'take', 'serve', 'join', 'return', 'hire', 'win', 'assume']);
/** "stood down as chair", "gave up the captaincy": a verb that leaves a role with its particle. */
const LEAVING_PHRASALS = new Set(['stand down', 'give up', 'bow out', 'hand over', 'hand on']);
/** Verbs whose object is given the role: "Initech named Sarah Connor as its new CEO". */
const APPOINTING_VERBS = new Set(['appoint', 'name', 'elect', 'hire', 'promote', 'make', 'choose', 'select', 'pick']);
/** Verbs whose object loses the role: "The board removed Ken Adams as CEO". */
const REMOVING_VERBS = new Set(['remove', 'fire', 'dismiss', 'oust', 'sack', 'depose', 'replace', 'succeed', 'strip', 'axe', 'drop']);
const FILLERS = new Set(['down', 'aside', 'over', 'up', 'as', 'the', 'a', 'an', 'its', 'their', 'his', 'her', 'our', 'my', 'new', 'interim', 'acting', 'from', 'to']);
/** The holder's noun of an office named as a noun of its own ("presidency" → "president"), else the noun. */
export function officeHolderNoun(noun: string): string {
  return OFFICES[noun] ?? noun;
}

/** "left her post as director of …": the post is the role that follows. */
const POST_NOUNS = new Set(['post', 'position', 'role', 'job', 'seat', 'office']);
const ROLE_PREPOSITIONS = new Set(['of', 'at', 'for']);
const COLLECTIVES = new Set(['board', 'company', 'management', 'shareholders', 'council', 'committee', 'team', 'club', 'owners', 'directors']);

interface RolePhrase {
  relation: string;
  organization: Mention;
  concept?: Mention;
  /** Token index (sentence-local) after the phrase. */
  end: number;
}

/** The role facts of one verb group, from the words around it. */
export function roleFacts(toks: Token[], group: VerbGroup, mentionAt: Map<number, Mention>, base: number, subjects: Mention[] = []): RoleFact[] {
  if (group.copula) return [...invertedRole(toks, group, mentionAt, base), ...speakersRole(toks, group, mentionAt)];
  if (group.lemma === 'replace' && group.passive) return replacement(toks, group.end, mentionAt, base);
  if (group.lemma === 'have' && !group.passive && !group.negative) {
    const holder = newHolder(toks, group, mentionAt, subjects);
    if (holder.length > 0) return holder;
  }
  const object = !group.passive ? mentionAt.get(group.end) : undefined;
  const organizationSubject = subjects.find((s) => s.type !== 'person') ?? possessiveOrganization(toks, group.start, mentionAt, base);
  if (object && (object.type === 'person' || (object.type === 'concept' && !object.common)) && (REMOVING_VERBS.has(group.lemma) || APPOINTING_VERBS.has(group.lemma))) {
    return transferred(toks, group, object, mentionAt, base, subjects, organizationSubject);
  }
  if (group.lemma === 'promote' && group.passive && toks[group.end]?.normal === 'from') return promotion(toks, group.end, mentionAt);
  // "Priya was ousted as CTO of Nimbus", "Ben was sacked as coach": the subject lost the role.
  // ("was stripped of the captaincy": of the office.)
  if (group.passive && REMOVING_VERBS.has(group.lemma) && (toks[group.end]?.normal === 'as' || (group.lemma === 'strip' && toks[group.end]?.normal === 'of'))) {
    const role = rolePhrase(toks, group.end + (toks[group.end].normal === 'of' ? 1 : 0), mentionAt, organizationSubject);
    return role ? [{ holder: null, organization: role.organization, relation: role.relation, ended: true, concept: role.concept }] : [];
  }
  if (group.lemma === 'take' && group.particle === 'over' && toks[group.end]?.normal === 'from') return takingOver(toks, group, mentionAt, base, organizationSubject);
  if (HANDING_VERBS.has(group.lemma) && !group.passive) {
    const handed = handover(toks, group, mentionAt);
    if (handed.length > 0) return handed;
  }
  const leaving = LEAVING_VERBS.has(group.lemma) || LEAVING_PHRASALS.has(`${group.lemma} ${group.particle ?? ''}`.trim());
  if (!leaving && !TAKING_VERBS.has(group.lemma)) return [];
  const role = rolePhrase(toks, group.end, mentionAt);
  return role ? [{ holder: null, organization: role.organization, relation: role.relation, ended: leaving, concept: role.concept }] : [];
}

/** "[as] [the] CEO of Acme" from `k`: the predicate and the organization (or the role alone). */
function rolePhrase(toks: Token[], k: number, mentionAt: Map<number, Mention>, organization?: Mention): RolePhrase | null {
  let i = k;
  // ("became a manager at Waitrose": one of several there, a job, as after the copula.)
  const indefinite = toks[k]?.normal === 'a' || toks[k]?.normal === 'an';
  const skip = () => {
    while (i < toks.length && !mentionAt.has(i) && (FILLERS.has(toks[i].normal) || (POST_NOUNS.has(toks[i].normal) && toks[i + 1]?.normal === 'as'))) i++;
  };
  skip();
  // "retired as Tullow's chairman", "lost the Lions captaincy": the organization before its role.
  const owner = mentionAt.get(i);
  const officeAfter = (at: number) => toks[at] !== undefined && OFFICES[toks[at].normal] !== undefined;
  if (owner && owner.type !== 'person' && (/['’]s$|['’]$/.test(toks[owner.end - toks[0].index - 1]?.text ?? '') || officeAfter(owner.end - toks[0].index))) {
    organization = owner;
    i = owner.end - toks[0].index;
    skip();
  }
  // "sales director", "head coach": the last noun of a short run names the role.
  let j = i;
  while (j + 1 < toks.length && j < i + 2 && !mentionAt.has(j + 1) && toks[j + 1].tags.has('Noun') && !ROLE_PREPOSITIONS.has(toks[j + 1].normal)) j++;
  for (let at = j; at >= i; at--) {
    const token = toks[at];
    if (!token || mentionAt.has(at)) continue;
    const role = OFFICES[token.normal] ?? chiefOffice(toks, at) ?? withoutEx(singularNoun(token.normal)).noun;
    if (!ROLE_NOUNS.has(role) && !OFFICE_ROLES.has(role)) continue;
    const relation = `${role.replace(/-/g, '_')}_of`;
    const prep = toks[at + 1];
    const determiner = toks[at + 2]?.tags.has('Determiner') ? 1 : 0;
    const named = prep && ROLE_PREPOSITIONS.has(prep.normal) ? mentionAt.get(at + 2 + determiner) : undefined;
    if (named) {
      if (named.type === 'concept' && !named.common) named.type = 'organization';
      const job = prep.normal !== 'of' && (indefinite || !OFFICE_ROLES.has(role)) && named.type !== 'person';
      return { relation: job ? 'works_at' : relation, organization: named, end: named.end - toks[0].index };
    }
    // "head of marketing at Acme": the head of a unit works at the organization (as after the copula).
    const unitOf = prep?.normal === 'of' && !mentionAt.has(at + 2) && toks[at + 2]?.tags.has('Noun') && ['at', 'of'].includes(toks[at + 3]?.normal ?? '');
    const unitOrganization = unitOf ? mentionAt.get(at + 4 + (toks[at + 4]?.tags.has('Determiner') ? 1 : 0)) : undefined;
    if (unitOrganization && unitOrganization.type !== 'person') return { relation: 'works_at', organization: unitOrganization, end: unitOrganization.end - toks[0].index };
    if (organization) return { relation, organization, end: at + 1 };
    // A role of no named organization: "stepped down as CTO", "our treasurer".
    if (!OFFICE_ROLES.has(role)) return null;
    const concept: Mention = {
      start: token.index,
      end: token.index + 1,
      name: token.text,
      type: 'concept',
      sentence: token.sentence,
      common: true,
    };
    return { relation: 'has_role', organization: concept, concept, end: at + 1 };
  }
  return null;
}

/** "chief executive", "chief financial officer": the office its initials name (ceo, cfo). */
function chiefOffice(toks: Token[], at: number): string | null {
  const words = [toks[at - 2]?.normal, toks[at - 1]?.normal, toks[at]?.normal];
  if (words[1] === 'chief' && words[2] === 'executive') return 'ceo';
  if (words[0] !== 'chief' || words[2] !== 'officer') return null;
  return CHIEF_OFFICERS[words[1] ?? ''] ?? null;
}
const CHIEF_OFFICERS: Readonly<Record<string, string>> = { executive: 'ceo', technology: 'cto', financial: 'cfo', operating: 'coo', information: 'cio' };

/** "Soylent's board removed …": the organization whose board acted. */
function possessiveOrganization(toks: Token[], groupStart: number, mentionAt: Map<number, Mention>, base: number): Mention | undefined {
  const noun = toks[groupStart - 1];
  if (!noun || !COLLECTIVES.has(noun.normal)) return undefined;
  for (const m of mentionAt.values()) {
    if (m.end - base === groupStart - 1 && m.type !== 'person') return m;
  }
  return undefined;
}

/**
 * "Initech named Sarah Connor as its new CEO, replacing John Smith", "Stark Industries replaced
 * Michael Brown with Nancy Drew as CFO", "Emily succeeded Patrick as president of the Chess
 * Society", "The board removed Ken Adams as CEO".
 */
function transferred(
  toks: Token[],
  group: VerbGroup,
  object: Mention,
  mentionAt: Map<number, Mention>,
  base: number,
  subjects: Mention[],
  organizationSubject: Mention | undefined,
): RoleFact[] {
  let k = object.end - base;
  let successor: Mention | undefined;
  if (toks[k]?.normal === 'with' && mentionAt.get(k + 1)?.type === 'person') {
    successor = mentionAt.get(k + 1);
    k = successor!.end - base;
  }
  if (toks[k]?.normal !== 'as' && !(APPOINTING_VERBS.has(group.lemma) && ['name', 'appoint', 'elect', 'make'].includes(group.lemma))) return [];
  const role = rolePhrase(toks, k, mentionAt, organizationSubject);
  if (!role) return [];
  const facts: RoleFact[] = [];
  const add = (holder: Mention, ended: boolean) =>
    facts.push({ holder, organization: role.organization, relation: role.relation, ended, concept: role.concept });
  if (APPOINTING_VERBS.has(group.lemma)) {
    add(object, false);
    // ", replacing John Smith"
    const replacing = toks.findIndex((t, i) => i >= role.end && t.normal === 'replacing');
    const predecessor = replacing >= 0 ? mentionAt.get(replacing + 1) : undefined;
    if (predecessor && predecessor.type === 'person') add(predecessor, true);
  } else {
    add(object, true);
    const person = subjects.find((s) => s.type === 'person');
    const taker = successor ?? ((group.lemma === 'replace' || group.lemma === 'succeed') ? person : undefined);
    if (taker) add(taker, false);
  }
  return facts;
}

const HANDING_VERBS = new Set(['hand', 'pass']);

/** "Nadia handed the chair of the Finance Committee to Ben": her role is now his. */
function handover(toks: Token[], group: VerbGroup, mentionAt: Map<number, Mention>): RoleFact[] {
  if (!['the', 'her', 'his', 'their'].includes(toks[group.end]?.normal ?? '')) return [];
  const role = rolePhrase(toks, group.end, mentionAt);
  if (!role || role.relation === 'has_role' || toks[role.end]?.normal !== 'to') return [];
  const successor = mentionAt.get(role.end + 1);
  if (!successor || !isSomeone(successor)) return [];
  return [
    { holder: null, organization: role.organization, relation: role.relation, ended: true },
    { holder: successor, organization: role.organization, relation: role.relation, ended: false },
  ];
}

/** "Pia took over from Otto as treasurer of the club": the subject took the role Otto gave up. */
function takingOver(toks: Token[], group: VerbGroup, mentionAt: Map<number, Mention>, base: number, organization: Mention | undefined): RoleFact[] {
  const predecessor = mentionAt.get(group.end + 1);
  if (!predecessor || !isSomeone(predecessor)) return [];
  const k = predecessor.end - base;
  if (toks[k]?.normal !== 'as') return [];
  const role = rolePhrase(toks, k + 1, mentionAt, organization);
  if (!role) return [];
  return [
    { holder: predecessor, organization: role.organization, relation: role.relation, ended: true, concept: role.concept },
    { holder: null, organization: role.organization, relation: role.relation, ended: false, concept: role.concept },
  ];
}

/** "X was replaced by Y as CEO of Acme", "X was replaced as CEO of Acme by Y": Y took the role X gave up. */
function replacement(toks: Token[], k: number, mentionAt: Map<number, Mention>, base: number): RoleFact[] {
  let successor: Mention | undefined;
  let role: RolePhrase | null;
  if (toks[k]?.normal === 'as') {
    role = rolePhrase(toks, k + 1, mentionAt);
    successor = role && toks[role.end]?.normal === 'by' ? mentionAt.get(role.end + 1) : undefined;
  } else {
    if (toks[k]?.normal !== 'by') return [];
    successor = mentionAt.get(k + 1);
    role = successor ? rolePhrase(toks, successor.end - base, mentionAt) : null;
  }
  if (!successor || !role) return [];
  return [
    { holder: null, organization: role.organization, relation: role.relation, ended: true, concept: role.concept },
    { holder: successor, organization: role.organization, relation: role.relation, ended: false, concept: role.concept },
  ];
}

/** "was promoted from CTO to CEO of Bluth Company": the first role ended, the second began. */
function promotion(toks: Token[], k: number, mentionAt: Map<number, Mention>): RoleFact[] {
  const to = toks.findIndex((t, i) => i > k && t.normal === 'to');
  if (to < 0) return [];
  const next = rolePhrase(toks, to + 1, mentionAt);
  if (!next) return [];
  const organization = next.relation === 'has_role' ? undefined : next.organization;
  const previous = rolePhrase(toks, k + 1, mentionAt, organization);
  if (!previous || previous.end > to + 1) return [];
  return [
    { holder: null, organization: previous.organization, relation: previous.relation, ended: true, concept: previous.concept },
    { holder: null, organization: next.organization, relation: next.relation, ended: false, concept: next.concept },
  ];
}

/** "Priya is our CTO.", "Dan is their new treasurer", "Ruth is our former chair": a role of the speaker's group. */
function speakersRole(toks: Token[], group: VerbGroup, mentionAt: Map<number, Mention>): RoleFact[] {
  let k = group.end;
  while (k < toks.length && (toks[k].tags.has('Adverb') || toks[k].normal === 'now')) k++;
  if (!['our', 'my', 'their', 'your'].includes(toks[k]?.normal ?? '')) return [];
  k++;
  let ended = false;
  while (k < toks.length && !mentionAt.has(k) && (toks[k].tags.has('Adjective') || FORMER.has(toks[k].normal)) && !OFFICE_ROLES.has(toks[k].normal)) {
    if (FORMER.has(toks[k].normal)) ended = true;
    k++;
  }
  const token = toks[k];
  if (!token || mentionAt.has(k)) return [];
  const { noun, former } = withoutEx(singularNoun(token.normal));
  const next = toks[k + 1];
  if (!OFFICE_ROLES.has(noun) || (next && ROLE_PREPOSITIONS.has(next.normal) && !/[.,;:]/.test(token.post))) return [];
  const concept: Mention = { start: token.index, end: token.index + 1, name: token.text, type: 'concept', sentence: token.sentence, common: true };
  return [{ holder: null, organization: concept, relation: 'has_role', ended: ended || former, concept }];
}

const FORMER = new Set(['former', 'previous', 'old', 'ex', 'erstwhile']);

/** "Leeds has a new mayor, Ben Cole", "Oak School has a new principal: Mr. Diaz": the subject's new holder of an office. */
function newHolder(toks: Token[], group: VerbGroup, mentionAt: Map<number, Mention>, subjects: Mention[]): RoleFact[] {
  const organization = subjects.find((s) => s.type !== 'person');
  let k = group.end;
  if (!organization || !['a', 'an'].includes(toks[k]?.normal ?? '') || toks[k + 1]?.normal !== 'new') return [];
  k += 2;
  const token = toks[k];
  if (!token || mentionAt.has(k) || !/[,:]/.test(token.post)) return [];
  const role = singularNoun(token.normal);
  // ("The Red Lion has a new owner, Maya Ruiz": she acquired it.)
  if (!OFFICE_ROLES.has(role) && role !== 'owner') return [];
  let at = k + 1;
  while (at < toks.length && (toks[at].tags.has('Honorific') || HONORIFICS.has(toks[at].normal.replace(/\.$/, '')))) at++;
  const holder = mentionAt.get(at);
  if (!holder || holder.type === 'organization' || holder.type === 'location') return [];
  if (organization.type === 'concept' && !organization.common) organization.type = 'organization';
  return [{ holder, organization, relation: role === 'owner' ? 'acquired' : `${role.replace(/-/g, '_')}_of`, ended: false }];
}

/**
 * "Our CTO is Priya.", "Acme's CEO is Jane Doe.", "Dunder Mifflin's new CEO is Robert.": the
 * role comes before the copula and its holder after it.
 */
function invertedRole(toks: Token[], group: VerbGroup, mentionAt: Map<number, Mention>, base: number): RoleFact[] {
  let after = group.end;
  while (after < toks.length && (toks[after].tags.has('Adverb') || toks[after].normal === 'now' || toks[after].tags.has('Honorific') || HONORIFICS.has(toks[after].normal))) after++;
  const holder = mentionAt.get(after);
  if (!holder || holder.type === 'organization' || holder.type === 'location') return [];
  // The words before the copula, back to the start of the clause.
  let from = group.start - 1;
  while (from > 0 && !/[,;:]/.test(toks[from - 1].post) && group.start - from < 6) from--;
  const roleAt = group.start - 1;
  const roleToken = toks[roleAt];
  if (!roleToken || mentionAt.has(roleAt)) return [];
  const role = singularNoun(roleToken.normal);
  if (!OFFICE_ROLES.has(role)) return [];
  let organization: Mention | undefined;
  for (let i = from; i < roleAt; i++) {
    const m = mentionAt.get(i);
    if (m && m.type !== 'person' && m.end - base <= roleAt) organization = m;
  }
  const first = toks[from];
  const ownedBySpeaker = first && ['our', 'my', 'their', 'the'].includes(first.normal);
  if (!organization && !ownedBySpeaker) return [];
  if (organization) {
    if (organization.type === 'concept' && !organization.common) organization.type = 'organization';
    return [{ holder, organization, relation: `${role.replace(/-/g, '_')}_of`, ended: false }];
  }
  const concept: Mention = {
    start: roleToken.index,
    end: roleToken.index + 1,
    name: roleToken.text,
    type: 'concept',
    sentence: roleToken.sentence,
    common: true,
  };
  return [{ holder, organization: concept, relation: 'has_role', ended: false, concept }];
}
