import { fuseByRank } from '../fusion';
import type { GbNearbyEntity } from './gb-nearby';
import { GbChunk, GbEdge, GbEntity } from './gb-query.repository';

/** A passage as given to the model: with its text (best 3) and/or its summary. */
export interface GbPassage {
  chunk: GbChunk;
  score: number;
  summary?: string;
  text?: string;
}

/** What was sent to the model: the subgraph and the passages. */
export interface GbContext {
  entities: GbEntity[];
  edges: GbEdge[];
  passages: GbPassage[];
  /** The entities the question matched (its seeds, not the fallback's): anchors of the nearby search when they are places. */
  matchedIds?: number[];
  /** The geo entities found near the question's places (nearby search), with their distance. */
  nearby?: GbNearbyEntity[];
}

export interface GbCitations {
  entities: number[];
  edges: number[];
  passages: number[];
}

export interface GbEvidence {
  entities: GbEntity[];
  edges: GbEdge[];
  passages: GbPassage[];
}

/** ISO-8601 without milliseconds, as in the contract's render (`2023-01-01T00:00:00Z`). */
export const renderGbTime = (at: Date): string => at.toISOString().replace(/\.\d{3}Z$/, 'Z');

export function renderGbEntity(e: GbEntity): string {
  return `[entity ${e.id}] ${e.name}${e.type ? ` (${e.type})` : ''}${e.description ? `: ${e.description}` : ''}`;
}

export function renderGbEdge(x: GbEdge): string {
  const times = [
    ...(x.validAt ? [`valid_at=${renderGbTime(x.validAt)}`] : []),
    ...(x.invalidAt ? [`invalid_at=${renderGbTime(x.invalidAt)}`] : []),
    ...(x.history ? [`history=${x.history}`] : []),
  ];
  return (
    `[edge ${x.id}] ${x.source}(${x.sourceId}) --${x.relation}--> ${x.target}(${x.targetId})` +
    `${x.description ? `: ${x.description}` : ''}${times.length ? ` [${times.join(', ')}]` : ''}`
  );
}

export function renderGbPassage(p: GbPassage): string {
  return [
    `[passage ${p.chunk.id}] chunk ${p.chunk.index} of text ${p.chunk.documentId}`,
    ...(p.summary !== undefined ? [`summary: ${p.summary}`] : []),
    ...(p.text !== undefined ? [`text: ${p.text}`] : []),
  ].join('\n');
}

/** "[entity 7] Versailles: 17.1 km from Paris" (the nearby search's distances, for the model). */
export function renderGbNearby(n: GbNearbyEntity): string {
  return `[entity ${n.entity.id}] ${n.entity.name}: ${n.distanceKm.toFixed(1)} km from ${n.anchor.name}`;
}

/** The `<graph>` block, then `<passages>` (left out when there are none). */
export function renderGbContext(context: GbContext): string {
  const graph = [...context.entities.map(renderGbEntity), ...context.edges.map(renderGbEdge)].join('\n');
  const parts = [`<graph>\n${graph}\n</graph>`];
  if (context.nearby?.length) parts.push(`<nearby>\n${context.nearby.map(renderGbNearby).join('\n')}\n</nearby>`);
  if (context.passages.length > 0) parts.push(`<passages>\n${context.passages.map(renderGbPassage).join('\n\n')}\n</passages>`);
  return parts.join('\n\n');
}

export const GB_QUERY_SYSTEM = [
  'You answer questions about a user from their memory: a knowledge graph and passages of texts they gave.',
  'Rules:',
  '- Answer only from the <graph> and <passages> given. If they do not contain the answer, say that you do not have that information in memory.',
  '- Each [entity N], [edge N] and [passage N] has an id N.',
  '- An edge without invalid_at is still true. An edge with invalid_at stopped being true at that time: use it only for questions about the past.',
  '- <current_time> is the time now.',
  '- Reply with only a JSON object, nothing else:',
  '{"answer": "<your answer>", "entities": [<ids of entities used>], "edges": [<ids of edges used>], "passages": [<ids of passages used>]}',
].join('\n');

/** What the question asks beyond the contract's request: an instant, and history. */
export interface GbQueryFraming {
  asOf?: Date;
  knownAt?: Date;
  includeHistory?: boolean;
}

/**
 * The system prompt: the contract's (GB_QUERY_SYSTEM) unless the question is asked at an
 * instant (<current_time> then holds that instant) or with history (edges marked history=...).
 */
export function gbQuerySystem({ asOf, knownAt, includeHistory }: GbQueryFraming = {}): string {
  if (!asOf && !knownAt && !includeHistory) return GB_QUERY_SYSTEM;
  return GB_QUERY_SYSTEM.split('\n')
    .flatMap((line) => {
      if ((asOf || knownAt) && line.startsWith('- <current_time>')) {
        return [
          asOf ? '- <current_time> is the instant the question is about: answer as things stood then (treat it as now).' : line,
          ...(knownAt ? ['- <known_at> is the instant the memory is read as of: the context holds only what had been recorded by then.'] : []),
        ];
      }
      if (includeHistory && line.startsWith('- An edge without invalid_at')) {
        return [
          line,
          '- An edge marked history=ended had stopped being true by <current_time>; one marked history=superseded had been replaced by newer knowledge. Use them for questions about the past (what was true before), never as what is true at <current_time>.',
        ];
      }
      return [line];
    })
    .join('\n');
}

export function gbQueryUser(question: string, context: GbContext, now: Date, knownAt?: Date): string {
  const known = knownAt ? `\n<known_at>${renderGbTime(knownAt)}</known_at>` : '';
  return `<current_time>${renderGbTime(now)}</current_time>${known}\n\n${renderGbContext(context)}\n\n<question>${question}</question>`;
}

/**
 * Step 4: cited ids validated against what was sent (others dropped), duplicates collapsed,
 * endpoints of cited edges added to the entities, everything ordered by id.
 */
export function buildEvidence(context: GbContext, cited: GbCitations): GbEvidence {
  const byId = <T extends { id: number }>(items: T[]) => new Map(items.map((item) => [item.id, item]));
  const entities = byId(context.entities);
  const edges = byId(context.edges);
  const passages = new Map(context.passages.map((p) => [p.chunk.id, p]));

  const citedEdges = [...new Set(cited.edges)].filter((id) => edges.has(id)).map((id) => edges.get(id)!);
  const entityIds = new Set(cited.entities.filter((id) => entities.has(id)));
  for (const edge of citedEdges) {
    for (const id of [edge.sourceId, edge.targetId]) if (entities.has(id)) entityIds.add(id);
  }
  return {
    entities: [...entityIds].map((id) => entities.get(id)!).sort((a, b) => a.id - b.id),
    edges: citedEdges.sort((a, b) => a.id - b.id),
    passages: [...new Set(cited.passages)]
      .filter((id) => passages.has(id))
      .map((id) => passages.get(id)!)
      .sort((a, b) => a.chunk.id - b.chunk.id),
  };
}

/**
 * Loci's lexical passage channel (not the contract's): the chunks BM25 ranks best for the
 * question, fused with the vector matches by weighted reciprocal rank (fusion.ts), with the
 * weights of the question's embedder (channelWeightsFor).
 */
export interface LexicalPassages {
  matches: Array<{ id: number; score: number }>;
  weights: { vector: number; lexical: number };
  /** Whether the chunk has a summary to give when it ranks past the passages with text. */
  hasSummary: (id: number) => boolean;
}

/**
 * Step 2.3: chunk and summary matches put together by chunk (score = the better of the two),
 * ranked; the best `withText` given with their text (+ summary if it matched too), then up to
 * `summaryOnly` more that matched by summary, given with the summary only.
 *
 * With `lexical` matches, that ranking and BM25's are fused by weighted reciprocal rank (the
 * score is then the fused one) before the same two cuts; a chunk BM25 found counts as found for
 * the summary-only places when it has a summary: BM25 matched its text, and its summary is the
 * summary of that text. Without them (none, or the channel off) the contract's ranking is kept as is.
 */
export function selectPassages(
  chunkMatches: Array<{ id: number; score: number }>,
  summaryMatches: Array<{ id: number; score: number }>,
  limits: { withText: number; summaryOnly: number },
  lexical?: LexicalPassages,
): Array<{ id: number; score: number; withText: boolean; withSummary: boolean }> {
  const merged = new Map<number, { id: number; score: number; bySummary: boolean }>();
  for (const m of chunkMatches) merged.set(m.id, { id: m.id, score: m.score, bySummary: false });
  for (const m of summaryMatches) {
    const known = merged.get(m.id);
    merged.set(m.id, { id: m.id, score: Math.max(known?.score ?? -Infinity, m.score), bySummary: true });
  }
  let ranked = [...merged.values()].sort((a, b) => b.score - a.score || a.id - b.id);
  const foundLexically = new Set<number>();
  if (lexical && lexical.matches.length > 0) {
    ranked = fuseByRank(
      [
        { items: ranked, weight: lexical.weights.vector },
        { items: lexical.matches.map((m) => ({ id: m.id, score: m.score, bySummary: false })), weight: lexical.weights.lexical },
      ],
      (m) => m.id,
    ).map((fused) => ({ ...fused.item, score: fused.score }));
    for (const m of lexical.matches) if (lexical.hasSummary(m.id)) foundLexically.add(m.id);
  }
  const best = ranked.slice(0, limits.withText).map((m) => ({ id: m.id, score: m.score, withText: true, withSummary: m.bySummary }));
  const more = ranked
    .slice(limits.withText)
    .filter((m) => m.bySummary || foundLexically.has(m.id))
    .slice(0, limits.summaryOnly)
    .map((m) => ({ id: m.id, score: m.score, withText: false, withSummary: true }));
  return [...best, ...more];
}
