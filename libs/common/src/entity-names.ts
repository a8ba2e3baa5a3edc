/**
 * The key an entity is matched on: case, accents, punctuation and spacing do not make two
 * names different ("ACME  Corp." = "acme corp"). Anything more lenient ("Acme" = "ACME Corp.")
 * is for the name vectors to decide. Ingestion stores it (entities.normalized_name) and
 * retrieval matches a question's word sequences against it.
 */
export function normalizeEntityName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
