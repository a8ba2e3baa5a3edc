import type { Fact } from '../api';
import { trueAt } from './as-of';

export interface GraphNode {
  id: string;
  name: string;
  type: string | null;
}

/** What the view has loaded: the entities opened (expanded) and every fact of theirs, every state. */
export interface Neighbourhood {
  nodes: ReadonlyMap<string, GraphNode>;
  facts: ReadonlyMap<string, Fact>;
  expanded: ReadonlySet<string>;
}

/**
 * The most nodes the view holds: the size the library was chosen to draw (record 0075). An
 * expansion past it adds the entity's facts only to nodes already drawn.
 */
export const MAX_NODES = 2000;

export const emptyNeighbourhood: Neighbourhood = { nodes: new Map(), facts: new Map(), expanded: new Set() };

/** The neighbourhood with an entity expanded: it, its facts and the entities at their other ends. */
export function withEntity(current: Neighbourhood, entity: GraphNode, facts: readonly Fact[]): Neighbourhood {
  const nodes = new Map(current.nodes);
  const kept = new Map(current.facts);
  nodes.set(entity.id, entity);
  for (const fact of facts) {
    const ends = [fact.source, fact.target].map((end) => ({ id: end.entity_id, name: end.name, type: end.type }));
    const missing = ends.filter((end) => !nodes.has(end.id));
    if (nodes.size + missing.length > MAX_NODES) continue;
    for (const end of missing) nodes.set(end.id, end);
    kept.set(fact.fact_id, fact);
  }
  return { nodes, facts: kept, expanded: new Set(current.expanded).add(entity.id) };
}

export interface Drawing {
  nodes: GraphNode[];
  facts: Fact[];
}

/**
 * What is drawn. Without an instant: every fact in every state (the view draws ended and
 * superseded ones apart). At an instant: the facts true then, the entities they join, and the
 * expanded entities (so the one being looked at never vanishes).
 */
export function drawnAt(neighbourhood: Neighbourhood, asOf: Date | null): Drawing {
  const facts = [...neighbourhood.facts.values()].filter((fact) => asOf === null || trueAt(fact, asOf));
  const ids = new Set(asOf === null ? neighbourhood.nodes.keys() : neighbourhood.expanded);
  for (const fact of facts) ids.add(fact.source.entity_id).add(fact.target.entity_id);
  const nodes = [...ids].map((id) => neighbourhood.nodes.get(id)).filter((node): node is GraphNode => node !== undefined);
  return { nodes, facts };
}

/**
 * The drawn entities in the keyboard's order (record 0079): from `centre` outwards, breadth first
 * over the drawn facts, by name at each distance; entities not joined to it last, by name. Down
 * the list is out from the entity being looked at, whatever the layout put where.
 */
export function keyboardOrder(drawing: Drawing, centre: string | null): GraphNode[] {
  const byName = (a: GraphNode, b: GraphNode) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id);
  const nodes = new Map(drawing.nodes.map((node) => [node.id, node]));
  const next = new Map<string, Set<string>>();
  for (const fact of drawing.facts) {
    const [a, b] = [fact.source.entity_id, fact.target.entity_id];
    next.set(a, (next.get(a) ?? new Set()).add(b));
    next.set(b, (next.get(b) ?? new Set()).add(a));
  }
  const order: GraphNode[] = [];
  const seen = new Set<string>();
  let ring = centre !== null && nodes.has(centre) ? [nodes.get(centre)!] : [];
  ring.forEach((node) => seen.add(node.id));
  while (ring.length > 0) {
    order.push(...ring);
    const outer = new Map<string, GraphNode>();
    for (const node of ring) for (const id of next.get(node.id) ?? []) if (!seen.has(id) && nodes.has(id)) outer.set(id, nodes.get(id)!);
    ring = [...outer.values()].sort(byName);
    ring.forEach((node) => seen.add(node.id));
  }
  return [...order, ...drawing.nodes.filter((node) => !seen.has(node.id)).sort(byName)];
}

/** How many drawn facts each drawn entity has a part in. */
export function factCounts(drawing: Drawing): Map<string, number> {
  const counts = new Map<string, number>();
  for (const fact of drawing.facts) {
    for (const id of new Set([fact.source.entity_id, fact.target.entity_id])) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}
