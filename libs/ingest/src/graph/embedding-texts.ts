/**
 * What text each vector of the graph embeds. Ingestion and re-embedding both read them from
 * here, so a graph moved to another embedder holds the vectors ingestion would have written.
 */

/** An entity's `name_embedding`: the name alone (entity resolution compares these). */
export const entityNameText = (name: string): string => name;

/** An entity's `embedding`: name and description (what retrieval searches). */
export const entityText = (name: string, description: string | null | undefined): string =>
  description ? `${name}: ${description}` : name;

/** A fact's `embedding`: the sentence it states, then its description. */
export const factText = (source: string, relation: string, target: string, description: string | null | undefined): string =>
  `${source} ${relation.replace(/_/g, ' ')} ${target}. ${description ?? ''}`;
