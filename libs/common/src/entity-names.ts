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

/**
 * What a document's name says it is about, as an entity name would be matched: without a file
 * extension ("acme-history.md") or a trailing qualifier in parentheses ("Lilu (mythology)"),
 * normalised like entity names. A passage that names it (retrieval's walk) points to the
 * document, as a link would. Undefined when nothing is left.
 */
export function documentNameKey(name: string): string | undefined {
  const bare = name
    .replace(/\.[A-Za-z0-9]{1,5}$/, '')
    .replace(/\s*\([^()]*\)\s*$/, '');
  return normalizeEntityName(bare) || undefined;
}
