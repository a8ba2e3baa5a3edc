/**
 * Where a document's page is: the document, and the passage (chunk) to show highlighted, the one an
 * answer's source cites. Written in the URL's fragment as the API's paths are (`#/documents/12`,
 * `#/documents/12/chunks/34`), so a source is a link: Back returns to the answer, a reload or a
 * new tab opens the same passage (the console is one page; the fragment never reaches the server).
 */
export interface DocumentAddress {
  documentId: string;
  chunkId: string | null;
}

const PATTERN = /^#\/documents\/(\d{1,15})(?:\/chunks\/(\d{1,15}))?$/;

export function hrefOf({ documentId, chunkId }: DocumentAddress): string {
  return chunkId ? `#/documents/${documentId}/chunks/${chunkId}` : `#/documents/${documentId}`;
}

/** The document a fragment names, or null (no fragment, or one that names none). */
export function addressIn(hash: string): DocumentAddress | null {
  const found = PATTERN.exec(hash);
  return found ? { documentId: found[1], chunkId: found[2] ?? null } : null;
}
