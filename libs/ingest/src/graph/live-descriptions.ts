import type { EdgeNode } from './edge-plan';
import type { EntityNode } from './entity-plan';

/**
 * An entity's description gathers the texts that named it ("a; b", see mergeDescriptions), so
 * it kept stating a fact after a later text superseded or ended it: "Alice works at Acme since
 * 2023." stayed in Alice's description after "In March 2024, Alice joined Globex.", and the
 * offline answer quoted it as the present. Descriptions follow the live facts: when a text
 * supersedes or ends a fact, the parts of its endpoints' descriptions that state it are
 * dropped (the fact itself keeps its own description and times, so history is not lost).
 *
 * Only endpoints the text names are rewritten: those rows are already locked by the chunk's
 * write, in the writer's lock order. A superseded fact's other endpoint that the text does not
 * name keeps its description.
 *
 * Returns the nodes whose description changed.
 */
export function dropStatementsOfStaleFacts(entities: Iterable<EntityNode>, stale: EdgeNode[]): EntityNode[] {
  const byId = new Map<number, EntityNode>();
  for (const node of entities) if (node.id !== undefined) byId.set(node.id, node);
  const changed = new Set<EntityNode>();
  for (const edge of stale) {
    const statements = statementsOf(edge.description);
    if (statements.length === 0) continue;
    for (const endpoint of [edge.sourceId, edge.targetId]) {
      const node = byId.get(endpoint);
      if (!node?.description) continue;
      const kept = node.description.split('; ').filter((part) => !statements.some((statement) => part.toLowerCase().includes(statement)));
      const description = kept.join('; ').trim() || null;
      if (description === node.description) continue;
      node.description = description;
      changed.add(node);
    }
  }
  return [...changed];
}

/** The statements a fact's description holds (merged ones are "a; b"), lowercased for comparison. */
function statementsOf(description: string | null): string[] {
  return (description ?? '')
    .split('; ')
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part.length > 0);
}
