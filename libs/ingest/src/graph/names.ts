export { normalizeEntityName } from '@loci/common';

/** Relations are snake_case predicates: "Works At" → works_at. */
export function normalizeRelation(relation: string): string {
  return (
    relation
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '_')
      .replace(/^_+|_+$/g, '') || 'related_to'
  );
}

/** Descriptions gathered from several texts, kept apart by "; " and bounded in length. */
export function mergeDescriptions(existing: string | null, incoming: string, maxLength = 1000): string {
  const current = existing?.trim() ?? '';
  const addition = incoming.trim();
  if (!addition || current.toLowerCase().includes(addition.toLowerCase())) return current;
  if (!current) return addition.slice(0, maxLength);
  const merged = `${current}; ${addition}`;
  return merged.length <= maxLength ? merged : current;
}
