/**
 * The key an entity is matched on: case, accents, punctuation and spacing do not make two
 * names different ("ACME  Corp." = "acme corp"). Anything more lenient ("Acme" = "ACME Corp.")
 * is for the name vectors to decide.
 */
export function normalizeEntityName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

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
