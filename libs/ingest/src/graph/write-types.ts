import type { VectorTier } from '@loci/db';
import type { ExtractedEnding, ExtractedEntity, ExtractedRelation } from '@loci/llm';

export interface EntityToWrite extends ExtractedEntity {
  /** Vector of the name alone (resolution) and of name + description (retrieval). */
  nameVector: number[];
  textVector: number[];
}

export interface RelationToWrite extends ExtractedRelation {
  vector: number[];
}

export interface ExtractionWrite {
  tenantId: string;
  graphId: number;
  documentId: number;
  chunkId?: number;
  /** valid_at of facts the text gives no date for: the document's date, or when it was loaded. */
  referenceDate: Date;
  entities: EntityToWrite[];
  relations: RelationToWrite[];
  /** States the text says ended without naming their object ("Priya retired"). */
  endings?: ExtractedEnding[];
  embeddingModel: string;
  /** Cosine similarity of two name vectors from which they name the same entity. */
  resolutionThreshold: number;
  /** Where the graph keeps its searched vectors (GraphWritesRepository.vectorTierForWrite); shared if unset. */
  vectorTier?: VectorTier;
}

/** What a write did to the graph (the gb remember response reports it). */
export interface GraphChanges {
  /** `matched`: existing entities the text named, left as they were (provenance added). */
  entities: { created: number[]; updated: number[]; matched: number[] };
  edges: { created: number[]; updated: number[]; superseded: number[]; ended: number[] };
}

export const emptyChanges = (): GraphChanges => ({
  entities: { created: [], updated: [], matched: [] },
  edges: { created: [], updated: [], superseded: [], ended: [] },
});

export function pushOnce(list: number[], id: number): void {
  if (!list.includes(id)) list.push(id);
}
