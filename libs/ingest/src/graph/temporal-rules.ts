/**
 * Which facts replace which. A fact about a "slot" that holds one value at a time (where
 * someone works, lives, who they are married to) supersedes the live fact of the same slot and
 * source with another target: "works at Acme" then "joined Globex" closes the Acme fact. An
 * ending event ("left Acme") ends the slot's fact with the same target without superseding it.
 * Relation names are the snake_case predicates of extraction; the local extractor names state
 * facts in the present (`works_at`) and events in the past (`joined`, `moved_to`).
 */
const SLOTS: Record<string, readonly string[]> = {
  employment: ['works_at', 'joined', 'employed_by', 'hired_by', 'switched_to', 'employee_of'],
  residence: ['lives_in', 'moved_to', 'relocated_to', 'resides_in'],
  marriage: ['married_to', 'married'],
  headquarters: ['headquartered_in', 'based_in'],
  leadership: ['ceo_of', 'leads', 'heads'],
};

const ENDINGS: Record<string, string> = {
  left: 'employment',
  quit: 'employment',
  resigned_from: 'employment',
  retired_from: 'employment',
  fired_from: 'employment',
  switched_from: 'employment',
  moved_out_of: 'residence',
  moved_from: 'residence',
  divorced: 'marriage',
};

const slotOf = new Map<string, string>(
  Object.entries(SLOTS).flatMap(([slot, relations]) => relations.map((relation) => [relation, slot] as const)),
);

/** Relations whose live facts (same source, other target) a new `relation` fact supersedes. */
export function supersededBy(relation: string): readonly string[] {
  const slot = slotOf.get(relation);
  return slot ? SLOTS[slot] : [];
}

/** Relations whose live fact with the same source and target a new `relation` fact ends. */
export function endedBy(relation: string): readonly string[] {
  const slot = ENDINGS[relation];
  return slot ? SLOTS[slot] : [];
}

/**
 * Every relation whose facts tell the story of `relation`'s slot for one source: the slot's
 * relations and the events that end it ("works_at" → joined, left, …). A relation of no slot
 * tells only its own story.
 */
export function slotRelations(relation: string): readonly string[] {
  const slot = slotOf.get(relation) ?? ENDINGS[relation];
  if (!slot) return [relation];
  const endings = Object.entries(ENDINGS)
    .filter(([, endedSlot]) => endedSlot === slot)
    .map(([ending]) => ending);
  return [...new Set([relation, ...SLOTS[slot], ...endings])];
}
