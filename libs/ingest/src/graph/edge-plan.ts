import type { EdgeRow } from '@loci/db';
import { mergeDescriptions } from './names';
import { endedBy, endedOpenlyBy, isSymmetric, supersededAtTarget, supersededBy } from './temporal-rules';
import type { RelationToWrite } from './write-types';

/** A fact a text touches: an existing live edge, or a new one, with the state to write. */
export interface EdgeNode {
  /** Set for existing rows; for new ones once they are inserted. */
  id?: number;
  sourceId: number;
  targetId: number;
  relation: string;
  description: string | null;
  weight: number;
  validAt: Date | null;
  invalidAt: Date | null;
  expiredAt: Date | null;
  /** A new edge: the rest of what to insert. */
  insert?: { keywords: string | null; vector: number[] };
  /** An existing row this text merged into, superseded or ended. */
  changed: boolean;
}

export type EdgeChange = { kind: 'created' | 'updated' | 'superseded' | 'ended'; node: EdgeNode };

/** A relation of the text with both endpoints resolved (relation name normalised). */
export interface ResolvedFact {
  relation: RelationToWrite;
  sourceId: number;
  targetId: number;
}

export interface EdgePlan {
  /** New edges, in the order of the facts that created them. */
  created: EdgeNode[];
  /** Existing edges to write back, in id order. */
  changed: EdgeNode[];
  /** Edges the text states (merged into or created): they get its provenance. */
  stated: EdgeNode[];
  changes: EdgeChange[];
}

/** An ending with no object ("Priya retired"), its subject resolved. */
export interface ResolvedEnding {
  sourceId: number;
  relation: string;
  validAt: string | null;
  /** "sold her car": the noun that named what ended. */
  noun?: string;
}

/** The relations whose live edges from an open ending's subject the plan must see. */
export function relationsEndedOpenly(relation: string, noun?: string): string[] {
  const { always, ifOnly } = endedOpenlyBy(relation, noun);
  return [...new Set([...always, ...ifOnly.flat()])];
}

/** The relations whose live edges from the fact's source the plan must see. */
export function relationsConsulted(relation: string): string[] {
  return [...new Set([relation, ...supersededBy(relation), ...endedBy(relation)])];
}

/** The relations whose live edges to the fact's target (from any source) the plan must see. */
export function relationsConsultedAtTarget(relation: string): readonly string[] {
  return supersededAtTarget(relation);
}

/** The live edges a text's plan must see, in the shape `lockLiveEdges` takes. */
export interface LiveEdgesWanted {
  /** Of each existing source, the relations consulted. */
  wanted: Array<{ sourceId: number; relations: string[] }>;
  /** Of each existing target, the relations consulted there. */
  atTargets: Array<{ targetId: number; relations: string[] }>;
}

/**
 * What GraphWriter locks before planning (and the offline measure reads the same way): the live
 * edges of the text's existing sources in the relations `relationsConsulted` names (those an open
 * ending ends, for its subject); of its existing targets, those `relationsConsultedAtTarget`
 * names; and a source's symmetric facts stored the other way round ("Joe dates Kim" for Kim).
 */
export function liveEdgesWanted(facts: readonly ResolvedFact[], endings: readonly ResolvedEnding[], existing: ReadonlySet<number>): LiveEdgesWanted {
  const bySource = new Map<number, Set<string>>();
  const byTarget = new Map<number, Set<string>>();
  const add = (map: Map<number, Set<string>>, id: number, relations: readonly string[]) => {
    if (!existing.has(id) || relations.length === 0) return;
    const set = map.get(id) ?? new Set<string>();
    relations.forEach((r) => set.add(r));
    map.set(id, set);
  };
  for (const fact of facts) {
    const consulted = relationsConsulted(fact.relation.relation);
    add(bySource, fact.sourceId, consulted);
    add(byTarget, fact.targetId, relationsConsultedAtTarget(fact.relation.relation));
    add(byTarget, fact.sourceId, consulted.filter(isSymmetric));
  }
  for (const ending of endings) {
    const relations = relationsEndedOpenly(ending.relation, ending.noun);
    add(bySource, ending.sourceId, relations);
    add(byTarget, ending.sourceId, relations.filter(isSymmetric));
  }
  return {
    wanted: [...bySource].map(([sourceId, relations]) => ({ sourceId, relations: [...relations] })),
    atTargets: [...byTarget].map(([targetId, relations]) => ({ targetId, relations: [...relations] })),
  };
}

/** The other end of an edge from `id`'s side. */
const otherEnd = (edge: EdgeNode, id: number) => (edge.sourceId === id ? edge.targetId : edge.sourceId);
/** An edge that is `id`'s own: from it, or to it when the relation says the same of both ends. */
const ownedBy = (edge: EdgeNode, id: number) => edge.sourceId === id || (edge.targetId === id && isSymmetric(edge.relation));

/**
 * Temporal facts of one text, as if its relations were written one after the other, starting
 * from `live` (the live edges of its sources with the relations `relationsConsulted` names):
 * - the same fact live already (source, relation, target) → merged: weight + 1, descriptions
 *   joined, the earlier valid_at;
 * - else a new edge; a live fact of the same slot that began after it makes it history (stored
 *   ended when that one began); otherwise it supersedes the slot's live facts with another
 *   target (true until it began, expired now);
 * - an ending event ends the slot's live fact with the same target, without superseding it;
 * - a fact one holder at a time has (`ceo_of`, `bought`) supersedes the live ones of other
 *   sources with the same target (`live` holds them too: relationsConsultedAtTarget);
 * - a fact the text says holds `alongside` the others ("also works at") supersedes nothing;
 * - a symmetric fact ("Joe dates Kim") is its target's as much as its source's: Kim's next
 *   partner supersedes it, Kim's ending ends it (its mirror, "Kim dates Joe", stays a row of its own).
 */
export function planEdges(live: EdgeRow[], facts: ResolvedFact[], referenceDate: Date, now: Date, endings: ResolvedEnding[] = []): EdgePlan {
  const edges: EdgeNode[] = [...live]
    .sort((a, b) => a.id - b.id)
    .map((row) => ({
      id: row.id,
      sourceId: row.sourceId,
      targetId: row.targetId,
      relation: row.relation,
      description: row.description,
      weight: row.weight,
      validAt: row.validAt,
      invalidAt: row.invalidAt,
      expiredAt: row.expiredAt,
      changed: false,
    }));
  const plan: EdgePlan = { created: [], changed: [], stated: [], changes: [] };

  for (const { relation, sourceId, targetId } of facts) {
    const validAt = relation.valid_at ? new Date(relation.valid_at) : referenceDate;
    const invalidAt = relation.invalid_at ? new Date(relation.invalid_at) : null;
    // "Omar also works at Oxfam": a value beside the slot's others replaces none of them.
    const replaces = relation.alongside ? [] : supersededBy(relation.relation);
    const ends = endedBy(relation.relation);
    const atTarget = relation.alongside ? [] : supersededAtTarget(relation.relation);
    // "Ana Ruiz is the new mayor": whoever else holds the role the fact gives.
    const holders = edges.filter((e) => e.expiredAt === null && e.targetId === targetId && e.sourceId !== sourceId && atTarget.includes(e.relation));
    const consulted = relationsConsulted(relation.relation);
    const current = edges.filter((e) => e.expiredAt === null && ownedBy(e, sourceId) && consulted.includes(e.relation));
    const other = (e: EdgeNode) => otherEnd(e, sourceId);

    // (A symmetric fact's mirror, "Bob dates Alice" beside "Alice dates Bob", is a row of its own:
    // the extractor writes both, so that each end's facts say it.)
    let stated = current.find((e) => e.relation === relation.relation && e.sourceId === sourceId && e.targetId === targetId);
    if (stated) {
      stated.weight += 1;
      stated.description = mergeDescriptions(stated.description, relation.description);
      stated.validAt = earliest(stated.validAt, validAt);
      // ("stood down as president in 2012, before being elected again": an earlier term's end
      // does not end the term known to hold since.)
      if (!endsBeforeStart(stated, invalidAt)) stated.invalidAt = stated.invalidAt ?? invalidAt;
      touch(stated);
      plan.changes.push({ kind: 'updated', node: stated });
    } else {
      // A live fact of the same slot that began after this one means this one is history: it
      // is stored as ended when that one began, and the live fact stays.
      const newer = [
        ...current.filter((e) => replaces.includes(e.relation) && other(e) !== targetId && e.validAt && e.validAt > validAt),
        ...holders.filter((e) => e.invalidAt === null && e.validAt && e.validAt > validAt),
      ];
      stated = {
        sourceId,
        targetId,
        relation: relation.relation,
        description: relation.description.trim() || null,
        weight: 1,
        validAt,
        invalidAt: invalidAt ?? (newer.length > 0 ? earliest(...newer.map((e) => e.validAt)) : null),
        expiredAt: null,
        insert: { keywords: relation.keywords.join(', ') || null, vector: relation.vector },
        changed: false,
      };
      edges.push(stated);
      plan.created.push(stated);
      plan.changes.push({ kind: 'created', node: stated });
      if (newer.length === 0) {
        // Closes the live facts this one replaces: true until it began, superseded now.
        for (const edge of current) {
          if (!replaces.includes(edge.relation) || other(edge) === targetId || statedAlongside(edge, validAt)) continue;
          edge.invalidAt = edge.invalidAt ?? validAt;
          edge.expiredAt = now;
          touch(edge);
          plan.changes.push({ kind: 'superseded', node: edge });
        }
        for (const edge of holders) {
          if ((edge.invalidAt !== null && edge.invalidAt <= validAt) || statedAlongside(edge, validAt)) continue;
          edge.invalidAt = edge.invalidAt ?? validAt;
          edge.expiredAt = now;
          touch(edge);
          plan.changes.push({ kind: 'superseded', node: edge });
        }
      }
    }
    // "Left Acme": the live employment fact with Acme ended then; it is history, not superseded.
    // So does a fact stated as over in the same slot ("a former employee of Acme" ends "works at
    // Acme"), when it ended.
    const endsSameTarget = invalidAt ? [...ends, ...replaces] : ends;
    for (const edge of current) {
      if (!endsSameTarget.includes(edge.relation) || edge === stated || other(edge) !== targetId || edge.invalidAt) continue;
      const endedAt = ends.includes(edge.relation) ? validAt : invalidAt;
      if (endsBeforeStart(edge, endedAt)) continue;
      edge.invalidAt = endedAt;
      touch(edge);
      plan.changes.push({ kind: 'ended', node: edge });
    }
    if (!plan.stated.includes(stated)) plan.stated.push(stated);
  }
  // "Priya retired last year": her live facts of the slots retiring ends, whatever their target,
  // that began before it (a fact this text states is ended only when it says it began earlier).
  for (const ending of endings) {
    const endedAt = ending.validAt ? new Date(ending.validAt) : referenceDate;
    const { always, ifOnly } = endedOpenlyBy(ending.relation, ending.noun);
    // A role named by its noun alone ("Our CTO is Priya"): the fact that says that role.
    const roleNamed = (e: EdgeNode) => e.relation !== 'has_role' || !ending.noun || new RegExp(`\\b${ending.noun}\\b`, 'i').test(e.description ?? '');
    const open = (e: EdgeNode) =>
      e.expiredAt === null && e.invalidAt === null && ownedBy(e, ending.sourceId) && e.validAt !== null && (e.insert ? e.validAt < endedAt : e.validAt <= endedAt);
    const ended = edges.filter((e) => open(e) && always.includes(e.relation) && roleNamed(e));
    for (const group of ifOnly) {
      const held = edges.filter((e) => open(e) && group.includes(e.relation));
      // "sold the pub" is the Red Lion pub the earlier text spoke of; "sold her bike" is not her
      // Honda Civic; "sold his Civic" is the one of his things the earlier text called so.
      const named = (e: EdgeNode) => !ending.noun || new RegExp(`\\b${ending.noun}s?\\b`, 'i').test(e.description ?? '');
      const meant = held.length === 1 ? held : ending.noun ? held.filter(named) : [];
      if (meant.length === 1 && named(meant[0])) ended.push(meant[0]);
    }
    for (const edge of ended) {
      edge.invalidAt = endedAt;
      touch(edge);
      plan.changes.push({ kind: 'ended', node: edge });
    }
  }
  plan.changed = edges.filter((e) => e.changed);
  return plan;
}

/**
 * A fact this same text stated, true from the same time: the text holds both values at once
 * ("head of the Physics Department at Exeter" read as two), so neither replaces the other.
 */
function statedAlongside(edge: EdgeNode, validAt: Date): boolean {
  return edge.insert !== undefined && edge.validAt !== null && edge.validAt.getTime() === validAt.getTime();
}

/**
 * An end dated a year before the fact was known to hold ends an earlier spell of it, not this
 * one. (Within the same year it may not be: "ended in 2023" is a date of the year's start, the
 * end itself any day of it.)
 */
function endsBeforeStart(edge: EdgeNode, endedAt: Date | null): boolean {
  return endedAt !== null && edge.validAt !== null && !edge.insert && endedAt.getUTCFullYear() < edge.validAt.getUTCFullYear();
}

function touch(edge: EdgeNode): void {
  if (!edge.insert) edge.changed = true;
}

function earliest(...dates: Array<Date | null>): Date | null {
  const present = dates.filter((d): d is Date => d !== null);
  return present.length === 0 ? null : new Date(Math.min(...present.map((d) => d.getTime())));
}
