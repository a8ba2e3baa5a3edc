/**
 * Which facts replace which. A fact about a "slot" that holds one value at a time (where
 * someone works, lives, who they are married to) supersedes the live fact of the same slot and
 * source with another target: "works at Acme" then "joined Globex" closes the Acme fact. An
 * ending event ("left Acme") ends the live facts of the families it ends with the same target,
 * without superseding them. Relation names are the snake_case predicates of extraction; the
 * local extractor names state facts in the present (`works_at`) and events in the past
 * (`joined`, `moved_to`).
 */
const SLOTS: Record<string, readonly string[]> = {
  employment: ['works_at', 'joined', 'employed_by', 'hired_by', 'switched_to', 'employee_of', 'transferred_to', 'teaches_at'],
  // A person "based in" a city lives (or works) there; an organization's base is its headquarters.
  residence: ['lives_in', 'moved_to', 'relocated_to', 'resides_in', 'emigrated_to', 'immigrated_to', 'settled_in', 'based_in'],
  marriage: ['married_to', 'married'],
  dating: ['dates'],
  engagement: ['engaged_to'],
  headquarters: ['headquartered_in', 'based_in'],
  leadership: ['ceo_of', 'leads', 'heads', 'head_of'],
  // A player plays for one team at a time, and joins another when transferred ("joined PSV").
  team: ['plays_for', 'signed_for', 'signed_with', 'traded_to', 'transferred_to', 'joined'],
  education: ['studies_at', 'transferred_to'],
  physician: ['patient_of'],
};

/**
 * Moves: a thing, a company or a person that moved is no longer where it was, wherever the
 * earlier text put it (`located_in` alone replaces nothing: "in Paris" and "in France" are both
 * true).
 */
const MOVES: Record<string, readonly string[]> = {
  // A patient moved to another ward, a prisoner to another prison: no longer where they were.
  moved_to: ['located_in', 'based_in', 'headquartered_in', 'stays_at', 'patient_at', 'held_at'],
  relocated_to: ['located_in', 'based_in', 'headquartered_in', 'stays_at'],
  // A patient or a prisoner transferred is no longer where they were.
  transferred_to: ['located_in', 'patient_at', 'held_at'],
};

/**
 * A state that leaves no room for another: "Tim married Jessica" after "Tim is dating Sarah"
 * ends the dating, an engagement ends dating someone else (not the other way round: "dates"
 * says nothing of a marriage).
 */
const IMPLIES_END_OF: Record<string, readonly string[]> = {
  married_to: ['dates', 'engaged_to'],
  married: ['dates', 'engaged_to'],
  engaged_to: ['dates'],
};

/**
 * Facts that end but do not exclude each other: one is a member of several clubs, owns several
 * things, holds several roles.
 */
const ROLES = [
  'ceo', 'cto', 'cfo', 'coo', 'cio', 'president', 'vice_president', 'chairman', 'chairwoman', 'chair', 'director', 'head',
  'manager', 'principal', 'headteacher', 'headmaster', 'headmistress', 'mayor', 'captain', 'coach', 'editor', 'dean', 'governor', 'treasurer', 'secretary', 'chancellor',
].map((role) => `${role}_of`);
const FAMILIES: Record<string, readonly string[]> = {
  ...SLOTS,
  membership: ['member_of'],
  ownership: ['owns', 'bought', 'purchased', 'acquired', 'inherited'],
  // A home owned in a place ("owns a flat in Seoul"): one of several, ended by selling it.
  homeOwnership: ['owns_home_in', 'bought_home_in'],
  roles: ROLES,
  location: ['located_in'],
  patient: ['patient_at'],
  custody: ['held_at'],
  stay: ['stays_at'],
  volunteering: ['volunteers_at'],
  training: ['trains_at'],
  friendship: ['friends_with'],
};

/** Ending events, and the families whose fact with the same source and target each one ends. */
const ENDINGS: Record<string, readonly string[]> = {
  left: ['employment', 'residence', 'membership', 'team', 'education', 'roles', 'location', 'stay', 'patient', 'volunteering', 'training'],
  quit: ['employment', 'membership', 'team', 'education', 'roles', 'volunteering'],
  resigned_from: ['employment', 'membership', 'team', 'roles'],
  retired_from: ['employment', 'membership', 'team', 'roles'],
  fired_from: ['employment', 'team', 'roles'],
  laid_off_from: ['employment', 'roles'],
  switched_from: ['employment'],
  expelled_from: ['membership', 'education', 'team'],
  graduated_from: ['education', 'training'],
  // "dropped out of Yale", "of the choir", "of the band".
  dropped_out_of: ['education', 'membership', 'team', 'training'],
  moved_out_of: ['residence', 'location'],
  // ("moved from Halfords to Kwik Fit": whatever the subject was at the place it moved from.)
  moved_from: ['residence', 'location', 'employment', 'team', 'education', 'membership'],
  moved_away_from: ['residence', 'location'],
  divorced: ['marriage', 'engagement', 'dating'],
  broke_up_with: ['dating', 'engagement', 'marriage'],
  married: ['engagement', 'dating'],
  // "Sam and Jo got married": the engagement is over (a state and an ending at once).
  married_to: ['engagement', 'dating'],
  fell_out_with: ['friendship'],
  sold: ['ownership'],
  sold_home_in: ['homeOwnership'],
  gave_away: ['ownership'],
  discharged_from: ['patient', 'custody'],
  // ("was released by the Leeds Rhinos": a squad member's place in it.)
  released_from: ['custody', 'team', 'membership', 'patient'],
  escaped_from: ['custody'],
  // "checked out of the Hilton", "of the Priory" (a clinic).
  checked_out_of: ['stay', 'patient'],
  lost: ['ownership'],
  removed_from: ['location', 'membership', 'roles', 'team'],
  // "handed the Tigers captaincy over to Mere": the office held there, not her place in the team.
  stepped_down_from: ['roles'],
  stolen_from: ['location'],
};

/**
 * Endings that name no object ("Priya retired", "Anna got divorced", "Maria sold her car"):
 * the families of the subject's live facts each one ends, whatever their target. A family one
 * holds several of at once (things owned, clubs) ends only when the subject holds one of it:
 * otherwise the text does not say which.
 */
const OPEN_ENDINGS: Record<string, readonly string[]> = {
  retired: ['employment', 'roles', 'team'],
  quit: ['employment', 'roles'],
  resigned: ['employment', 'roles'],
  left_job: ['employment', 'roles'],
  laid_off: ['employment', 'roles'],
  fired: ['employment', 'roles', 'team'],
  stepped_down: ['roles'],
  stopped_volunteering: ['volunteering'],
  stopped_studying: ['education', 'training'],
  left_group: ['membership', 'team'],
  broke_up: ['dating', 'engagement'],
  separated: ['marriage', 'engagement', 'dating'],
  divorced: ['marriage', 'engagement'],
  widowed: ['marriage', 'engagement', 'dating'],
  graduated: ['education', 'training'],
  dropped_out: ['education', 'training'],
  moved_away: ['residence', 'location', 'headquarters', 'stay'],
  // "The statue was taken down", "was removed": a thing no longer where it stood.
  taken_down: ['location'],
  sold: ['ownership'],
  discharged: ['patient'],
  released: ['custody', 'patient'],
};
/** Families a subject may hold several facts of at once: an open ending ends one only when it is the only one. */
const SEVERAL_AT_ONCE = new Set(['membership', 'ownership']);
/** A role of no named organization ("Our CTO is Priya") ends with the roles. */
const OPEN_FAMILIES: Record<string, readonly string[]> = { ...FAMILIES, roles: [...ROLES, 'has_role'] };

/**
 * What an ending with no object ends: `always`, the relations whose live facts of the subject
 * it ends whatever their target; `ifOnly`, groups of relations whose fact it ends when the
 * subject has exactly one live fact among them.
 */
export function endedOpenlyBy(relation: string, noun?: string): { always: readonly string[]; ifOnly: ReadonlyArray<readonly string[]> } {
  const families = OPEN_ENDINGS[relation] ?? [];
  // "stepped down as treasurer", "is no longer the treasurer": that role, not every one.
  const role = noun ? `${noun.replace(/-/g, '_')}_of` : null;
  // (A role of no relation of its own, "stepped down as a trustee", is only ever a `has_role` fact.)
  const named = (family: string) => (family === 'roles' && role ? (ROLES.includes(role) ? [role, 'has_role'] : ['has_role']) : OPEN_FAMILIES[family]);
  return {
    always: families.filter((family) => !SEVERAL_AT_ONCE.has(family)).flatMap(named),
    ifOnly: families.filter((family) => SEVERAL_AT_ONCE.has(family)).map((family) => OPEN_FAMILIES[family]),
  };
}

/**
 * Facts one holder at a time has, whoever it is: an organization has one CEO, a thing bought
 * has a new owner. A new fact of these supersedes the live ones of other sources with the same
 * target ("Ana Ruiz is the new mayor of Springfield" closes Tom Hayes's `mayor_of`).
 */
const ONE_HOLDER_ROLES = ['ceo', 'cto', 'cfo', 'coo', 'cio', 'president', 'chairman', 'chairwoman', 'chair', 'mayor', 'principal', 'headteacher', 'headmaster', 'headmistress', 'captain', 'coach', 'governor', 'chancellor', 'dean'].map(
  (role) => `${role}_of`,
);
const AT_TARGET: Record<string, readonly string[]> = {
  ...Object.fromEntries(ONE_HOLDER_ROLES.map((relation) => [relation, [relation]])),
  bought: FAMILIES.ownership,
  acquired: FAMILIES.ownership,
  purchased: FAMILIES.ownership,
  inherited: FAMILIES.ownership,
};

/**
 * Relations that say the same of both ends: "Joe dates Kim" is Kim's dating Joe too, so Kim's
 * next partner ends it ("Kim has a new boyfriend, Dave") and so does "Kim is single again",
 * whichever way round the earlier text put it.
 */
const SYMMETRIC = new Set(['married_to', 'married', 'dates', 'engaged_to', 'friends_with', 'divorced', 'separated', 'broke_up_with', 'fell_out_with']);

export function isSymmetric(relation: string): boolean {
  return SYMMETRIC.has(relation);
}

/** Relations whose live facts with the same target and another source a new `relation` fact supersedes. */
export function supersededAtTarget(relation: string): readonly string[] {
  return AT_TARGET[relation] ?? [];
}

const slotsOf = new Map<string, string[]>();
for (const [slot, relations] of Object.entries(SLOTS)) {
  for (const relation of relations) slotsOf.set(relation, [...(slotsOf.get(relation) ?? []), slot]);
}

/** Relations whose live facts (same source, other target) a new `relation` fact supersedes. */
export function supersededBy(relation: string): readonly string[] {
  const slots = slotsOf.get(relation) ?? [];
  return [...new Set([...slots.flatMap((slot) => SLOTS[slot]), ...(MOVES[relation] ?? []), ...(IMPLIES_END_OF[relation] ?? [])])];
}

/** Relations whose live fact with the same source and target a new `relation` fact ends. */
export function endedBy(relation: string): readonly string[] {
  return [...new Set((ENDINGS[relation] ?? []).flatMap((family) => FAMILIES[family]))];
}

/**
 * Every relation whose facts tell the story of `relation`'s slot for one source: the slot's
 * relations and the events that end it ("works_at" → joined, left, …). A relation of no slot
 * tells only its own story.
 */
export function slotRelations(relation: string): readonly string[] {
  const slots = slotsOf.get(relation) ?? ENDINGS[relation]?.filter((family) => family in SLOTS) ?? [];
  if (slots.length === 0) return [relation];
  const endings = Object.entries(ENDINGS)
    .filter(([, families]) => families.some((family) => slots.includes(family)))
    .map(([ending]) => ending);
  return [...new Set([relation, ...slots.flatMap((slot) => SLOTS[slot]), ...endings])];
}
