import type { RetrievedContext, RetrievedRelation } from '@loci/retrieval';

/**
 * Text renderings of retrieved material: the lines the answer model reads, and the answer an
 * API-key client gets with `context_only: false` (led by the mandatory disclaimer).
 */
export const CONTEXT_MODE_DISCLAIMER =
  'This is retrieved material, not an answer: it was not written by a language model. ' +
  'Use the context below with your own model, or ask from the dashboard for a written answer.';

const day = (date: Date | null) => (date ? date.toISOString().slice(0, 10) : null);

export function relationLine(r: RetrievedRelation): string {
  const dates = [r.validAt ? `since ${day(r.validAt)}` : null, r.invalidAt ? `until ${day(r.invalidAt)}` : null].filter(Boolean);
  return `${r.source} --${r.relation}--> ${r.target}${r.description ? `: ${r.description}` : ''}${dates.length ? ` [${dates.join(', ')}]` : ''}`;
}

/** The graph part of the context (entities and facts) as one block of lines. */
export function graphBlock(context: RetrievedContext): string {
  const entities = context.entities.map((e) => `- ${e.name}${e.type ? ` (${e.type})` : ''}${e.description ? `: ${e.description}` : ''}`);
  const relations = context.relations.map((r) => `- ${relationLine(r)}`);
  return [
    ...(entities.length ? ['Entities:', ...entities] : []),
    ...(relations.length ? ['Facts:', ...relations] : []),
  ].join('\n');
}

export function contextAsAnswerText(context: RetrievedContext): string {
  const chunks = context.chunks.map((c, i) => `[${i + 1}] ${c.documentName}\n${c.text}`);
  return [CONTEXT_MODE_DISCLAIMER, graphBlock(context), ...(chunks.length ? ['Passages:', ...chunks] : [])]
    .filter((part) => part.length > 0)
    .join('\n\n');
}
