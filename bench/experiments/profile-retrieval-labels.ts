/** A short name for a retrieval statement by what it reads (bench/experiments/profile-retrieval.ts, bench/experiments/retrieval-cpu.ts). */
export function labelOf(text: string): string {
  const t = text.replace(/\s+/g, ' ');
  if (t.includes('chunk_terms') && t.includes('edge_chunks')) return 'edge_lexical';
  if (t.includes('chunk_terms')) return 'chunk_lexical' + (t.includes('name_key') ? '+named' : '');
  if (t.includes('linked_documents')) return 'walk_neighbourhood';
  if (t.includes('WITH ORDINALITY AS wanted') && t.includes('JOIN chunks')) return 'chunks_by_ids';
  if (t.includes('d.name_key = ANY') && t.includes('normalized_name')) return 'named(entities+documents)';
  if (t.includes('d.name_key = ANY')) return 'documents_named';
  if (t.includes('e.normalized_name = ANY')) return 'entities_named';
  if (t.includes('by_summary')) return 'chunk_vector';
  if (t.includes('<=>') && t.includes('FROM entities')) return 'entity_vector';
  if (t.includes('<=>') && t.includes('FROM edges')) return 'edge_vector';
  if (t.includes('edges_live') || t.includes('degree')) return 'edges_around';
  if (t.includes('entity_position')) return 'supporting_chunks';
  if (t.includes('FROM entities')) return 'entities_by_ids';
  return t.slice(0, 40);
}
