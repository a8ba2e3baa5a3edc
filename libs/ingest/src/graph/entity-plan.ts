import { halfRound, type LockedEntity } from '@loci/db';
import { mergeDescriptions } from './names';
import { similarEarlierNames, type SimilarName } from './similar-names';
import type { EntityToWrite } from './write-types';

/** An entity a text names: an existing row, or a new one, with the state to write. */
export interface EntityNode {
  /** Set for existing rows; for new ones once they are inserted. */
  id?: number;
  description: string | null;
  type: string | null;
  /** A new entity: what to insert. */
  insert?: { name: string; normalizedName: string; nameVector: number[]; textVector: number[] };
  /** An existing row whose description or type the text changed. */
  changed: boolean;
  /** An existing row's new `embedding`, when the change is material (see materialDescriptionChange). */
  textVector?: number[];
}

export type EntityChange = { kind: 'created' | 'updated' | 'matched'; node: EntityNode };

export interface EntityPlan {
  /** Every normalised name of the text → the entity it resolved to. */
  byKey: Map<string, EntityNode>;
  /** New entities, in the order the text names them. */
  created: EntityNode[];
  /** What happened to each name, in order (the changes the writer reports). */
  changes: EntityChange[];
}

export interface EntityPlanInput {
  /** The text's entities, one per normalised name (`key`), in order. */
  named: Array<{ key: string; entity: EntityToWrite }>;
  /** Existing entities with exactly the normalised name. */
  exact: Map<string, number>;
  /** For names without an exact match: the closest existing entity by name vector. */
  nearest: Map<string, { id: number; similarity: number }>;
  /** The existing entities above, as locked (one missing was deleted meanwhile). */
  rows: Map<number, LockedEntity>;
  threshold: number;
  /** The embedder of the text's vectors: a row another model embedded never gets one of them. */
  embeddingModel?: string;
  /**
   * similarEarlierNames of the names' vectors at `threshold`, when the caller computed it (off the
   * request thread: it is quadratic in the names); computed here otherwise.
   */
  similarEarlier?: SimilarName[][];
}

/**
 * Entity resolution of one text, as if its names were written one after the other: the same
 * normalised name → that entity; else the closest entity by name vector (an existing one, or
 * one this text created for an earlier name) at cosine ≥ threshold; else a new entity.
 * Descriptions merge into the entity each name resolves to.
 */
export function planEntities(input: EntityPlanInput): EntityPlan {
  const existing = new Map<number, EntityNode>();
  /** Existing rows embedded by the text's embedder (their vector may be replaced by the text's). */
  const comparable = new Set<number>();
  const nodeOf = (id: number | undefined): EntityNode | undefined => {
    if (id === undefined) return undefined;
    const known = existing.get(id);
    if (known) return known;
    const row = input.rows.get(id);
    if (!row) return undefined;
    const node: EntityNode = { id, description: row.description, type: row.type, changed: false };
    if (row.embeddingModel === input.embeddingModel) comparable.add(id);
    existing.set(id, node);
    return node;
  };

  const similarEarlier =
    input.similarEarlier ?? similarEarlierNames(input.named.map((n) => n.entity.nameVector), input.threshold);
  // The node each name of the text created, by its position (for the names that did).
  const createdAt: Array<EntityNode | undefined> = [];
  const plan: EntityPlan = { byKey: new Map(), created: [], changes: [] };
  for (const [position, { key, entity }] of input.named.entries()) {
    const sameName = nodeOf(input.exact.get(key));
    const target = sameName ?? closest(input, similarEarlier[position], createdAt, key, nodeOf);
    if (target) {
      const description = mergeDescriptions(target.description, entity.description);
      const type = target.type ?? entity.type;
      if (description !== (target.description ?? '') || type !== target.type) {
        if (sameName && comparable.has(sameName.id!) && materialDescriptionChange(target.description, description)) {
          // The text's vector is of this name and this description: what the row's would be.
          target.textVector = entity.textVector;
        }
        target.description = description;
        target.type = type;
        if (!target.insert) target.changed = true;
        plan.changes.push({ kind: 'updated', node: target });
      } else {
        plan.changes.push({ kind: 'matched', node: target });
      }
      plan.byKey.set(key, target);
      continue;
    }
    const created: EntityNode = {
      description: entity.description.trim() || null,
      type: entity.type || null,
      insert: { name: entity.name.trim(), normalizedName: key, nameVector: entity.nameVector, textVector: entity.textVector },
      changed: false,
    };
    plan.created.push(created);
    createdAt[position] = created;
    plan.changes.push({ kind: 'created', node: created });
    plan.byKey.set(key, created);
  }
  return plan;
}

/**
 * Whether an entity's `embedding` (name + description) is rewritten when its description
 * merges: only when it had no description and now has one, so that the vector goes from the
 * name alone to name and description. A description that grows by appending (`a; b`) keeps the
 * vector of its first part: retrieval finds an entity by what it is, and what later texts add
 * about it are facts, whose own vectors are written with them. Every other merge is then a
 * HOT update that writes no index entry (docs/decisions/0024-fewer-vector-writes.md, "Fewer vector writes").
 */
export function materialDescriptionChange(before: string | null, after: string): boolean {
  return !(before ?? '').trim() && after.trim() !== '';
}

function closest(
  input: EntityPlanInput,
  similarEarlier: SimilarName[],
  createdAt: Array<EntityNode | undefined>,
  key: string,
  nodeOf: (id: number | undefined) => EntityNode | undefined,
): EntityNode | undefined {
  let best: { node: EntityNode; similarity: number } | undefined;
  const nearest = input.nearest.get(key);
  const stored = nodeOf(nearest?.id);
  if (stored && Number.isFinite(nearest!.similarity)) best = { node: stored, similarity: nearest!.similarity };
  // Only earlier names at or above the threshold are listed: below it none could be the answer.
  for (const { index, similarity } of similarEarlier) {
    const node = createdAt[index];
    if (node && (!best || similarity > best.similarity)) best = { node, similarity };
  }
  return best && best.similarity >= input.threshold ? best.node : undefined;
}

/**
 * Cosine similarity as the store computes it: on the vectors rounded to half precision (the
 * width of a `halfvec` component). NaN when either vector is zero, as in pgvector.
 */
export function cosineSimilarity(a: number[], b: number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = halfRound(a[i]);
    const y = halfRound(b[i]);
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return dot / Math.sqrt(normA * normB);
}
