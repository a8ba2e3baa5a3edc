import { Inject, Injectable, Optional } from '@nestjs/common';
import { Settings, SETTINGS } from '@loci/config';
import { atStoredWidth, Database, DATABASE, EMBEDDING_DIMENSIONS, ReadRouter } from '@loci/db';
import { applyBudgets } from './context-budget';
import { fuseByRank } from './fusion';
import { raiseToldInPeriod } from './question-time';
import { keepBestScore, roundRobin } from './merge';
import { bestScored, personalizedPageRank } from './graph-walk';
import { relationWordsFor } from './fact-topics';
import { candidateNames, namedInPassage } from './question-names';
import { PassageLink, rankWithNamedDocuments, RankedPassage, spreadThroughLinks } from './passage-links';
import { ChunkHit, EdgeHit, EntityHit, Scope, SupportingChunk } from './retrieval.queries';
import { RetrievalRepository } from './retrieval.repository';
import { withoutStaleStatements } from './stale-statements';
import type { CitableSource } from '@loci/llm';
import {
  ChannelWeights,
  DEFAULT_RETRIEVAL_BUDGETS,
  DEFAULT_TOP_K,
  HASHING_EMBEDDER_WEIGHTS,
  RETRIEVAL_MODES,
  RetrievalBudgets,
  RetrievalRequest,
  RetrievedChunk,
  RetrievedContext,
  RetrievedEntity,
  RetrievedRelation,
} from './retrieval.types';

/** Upper bound of `topK`: past it a vector search stops being a top-k search. */
export const MAX_TOP_K = 200;

/** One-hop expansion keeps at most topK × this many edges in all (then the budget cuts). */
export const EDGES_PER_ENTITY_HIT = 2;

/** The walk of the local path restarts at this many of BM25's best passages. */
export const WALK_SEED_PASSAGES = 3;

/**
 * The global path ranks the facts of BM25's this many best passages: reading every fact's words
 * is the costliest step of a global question (~180 facts in 20 passages at the 10k bench).
 */
export const FACT_SOURCE_PASSAGES = 10;

/** In the global path, the weight of the facts' chunks beside the passages they came from. */
export const GLOBAL_FACT_CHUNKS_WEIGHT = 0.2;

/** At most this many entities named in the seed passages join the walk. */
export const MAX_LINKED_ENTITIES = 64;

/** What the graph side of one path (local or global) found, each list ranked. */
interface GraphFinds {
  entities: RetrievedEntity[];
  relations: RetrievedRelation[];
  chunks: RetrievedChunk[];
  /**
   * The local path's passages: BM25's, the documents the question names and those the best
   * passages name (passage-links.ts), best first. They take BM25's place in the fusion of a mode
   * that walks the graph.
   */
  passages: RetrievedChunk[];
}

/** At most this many superseded or ended facts are read to take their statements out of an answer's sources. */
const ENDED_FACTS_READ = 50;

const nothing = (): GraphFinds => ({ entities: [], relations: [], chunks: [], passages: [] });

/**
 * The retrieval of `/v1/query` (LightRAG's modes over Loci's graph):
 * - local: entities nearest to the low-level keywords, their live edges (one hop), and the
 *   chunks supporting them;
 * - global: live edges nearest to the high-level keywords, their endpoints, supporting chunks;
 * - hybrid: both, merged round-robin and de-duplicated;
 * - naive: chunks best matching the question by BM25 (the documents it names raised) and nearest
 *   to it (text or summary vector);
 * - mix: hybrid plus naive.
 * In the modes that walk the graph, the passage ranking also follows the links of its best
 * passages to the documents they name (passage-links.ts) and takes BM25's place.
 * The chunk lists (passages, vector, local, global) are fused by weighted reciprocal rank
 * (fusion.ts; weights in retrieval.types.ts), so chunks come back best first and a weak channel
 * cannot push a strong one's finds down. A path whose input is missing (e.g. no high-level
 * keywords) contributes nothing. The paths of one request run concurrently; then the token
 * budgets cut each section.
 */
@Injectable()
export class RetrievalService {
  private readonly repository: RetrievalRepository;

  /** Without settings (tests, the benchmark's tools), BM25's cut is the default. */
  /** `reads`: the app's ReadRouter (replicas); absent where the service is built alone, reads go to `database`. */
  constructor(
    @Inject(DATABASE) database: Database,
    @Optional() @Inject(SETTINGS) settings?: Pick<Settings, 'query'>,
    @Optional() reads?: ReadRouter,
  ) {
    this.repository = new RetrievalRepository(database, { bm25PostingsPerTerm: settings?.query.bm25PostingsPerTerm, reads });
  }

  /** True when at least one processed document of the graph has a chunk (something to search), recorded by `knownAt` if given. */
  graphHasContent(tenantId: string, graphId: number, knownAt?: Date): Promise<boolean> {
    return this.repository.graphHasContent({ tenantId, graphId, ...(knownAt ? { knownAt } : {}) });
  }

  /**
   * Answer sources about the present without the statements of the facts about the context's
   * entities that were superseded or ended (withoutStaleStatements): one capped read.
   */
  async withoutEndedFacts(tenantId: string, graphId: number, context: RetrievedContext, sources: CitableSource[]): Promise<CitableSource[]> {
    const ids = [...new Set([...context.entities.map((e) => e.id), ...context.relations.flatMap((r) => [r.sourceId, r.targetId])])];
    const now = new Date();
    const ended = await this.repository.endedFactDescriptions({ tenantId, graphId }, ids, ENDED_FACTS_READ);
    // The context's own ended facts (returned with their dates) are not true now either.
    const endedInContext = (r: RetrievedContext['relations'][number]) => r.invalidAt !== null && r.invalidAt <= now;
    const live = context.relations.filter((r) => !endedInContext(r)).map((r) => r.description);
    return withoutStaleStatements(sources, [...ended, ...context.relations.filter(endedInContext).map((r) => r.description)], live);
  }

  async retrieve(request: RetrievalRequest): Promise<RetrievedContext> {
    const started = performance.now();
    if (!RETRIEVAL_MODES.includes(request.mode)) throw new RangeError(`unknown retrieval mode: ${String(request.mode)}`);
    const scope: Scope = {
      tenantId: request.tenantId,
      graphId: request.graphId,
      embeddingModel: request.embeddingModel,
      ...(request.asOf ? { asOf: request.asOf } : {}),
      ...(request.knownAt ? { knownAt: request.knownAt } : {}),
      ...(request.vectorTier ? { vectorTier: request.vectorTier } : {}),
    };
    const topK = checkTopK(request.topK ?? DEFAULT_TOP_K);
    const budgets = checkBudgets({ ...DEFAULT_RETRIEVAL_BUDGETS, ...definedOnly(request.budgets ?? {}) });
    const { mode } = request;
    const timings: Record<string, number> = {};
    const timed = async <T>(stage: string, work: () => Promise<T>): Promise<T> => {
      const at = performance.now();
      try {
        return await work();
      } finally {
        timings[stage] = Math.round((performance.now() - at) * 100) / 100;
      }
    };

    const usesLocal = mode === 'local' || mode === 'hybrid' || mode === 'mix';
    const usesGlobal = mode === 'global' || mode === 'hybrid' || mode === 'mix';
    const usesNaive = mode === 'naive' || mode === 'mix';
    const lowLevel = usesLocal ? searchVector(request.lowLevelVector, 'lowLevelVector') : undefined;
    const highLevel = usesGlobal ? searchVector(request.highLevelVector, 'highLevelVector') : undefined;
    const question = usesNaive ? searchVector(request.questionVector, 'questionVector') : undefined;
    const questionText = request.questionText?.trim() || undefined;
    const highLevelWords = request.highLevelKeywords ?? [];
    // The global path matches facts with the question, its high-level keywords and the relation
    // words of the topics they name ("employment" → "works at"; fact-topics.ts).
    const globalText = usesGlobal
      ? [questionText, ...highLevelWords, relationWordsFor([...highLevelWords, questionText ?? ''])].filter(Boolean).join('\n') || undefined
      : undefined;
    const weights = { ...HASHING_EMBEDDER_WEIGHTS, ...definedOnly(request.weights ?? {}) };
    // The word runs of the question that could name an entity or a document (question-names.ts).
    const questionNames = questionText && (usesNaive || usesLocal) ? candidateNames(questionText) : [];

    // BM25 ranks chunks for naive and mix, seeds the local path's walk and gives the global
    // path the passages whose facts it ranks.
    // The documents the question names come with BM25 (one statement) for the modes that rank
    // passages by it.
    const passagesRead: Promise<{ lexical: ChunkHit[]; named: ChunkHit[] }> = questionText
      ? timed('lexical.chunks', () =>
          this.repository.searchPassages(scope, questionText, topK, questionNames),
        )
      : Promise.resolve({ lexical: [], named: [] });
    // Every mode awaits passageSearch below, and only the global path reads passagesRead itself:
    // no promise derived from the read is left unawaited by a mode that does not need it, so a
    // failed statement fails this request instead of becoming an unhandled rejection that ends
    // the process (issue 33.2: naive and local left the global path's derived promise unawaited).
    const passageSearch = passagesRead.then(({ lexical, named }) => rankWithNamedDocuments(lexical, named));
    const [local, global, naive, passageFinds] = await Promise.all([
      usesLocal && (lowLevel || questionText) ? this.localPath(scope, { vector: lowLevel, questionNames, passageSearch }, topK, timed) : nothing(),
      usesGlobal && (highLevel || globalText)
        ? this.globalPath(
            scope,
            {
              vector: highLevel,
              text: globalText,
              passagesRead,
              // When BM25 finds no passage for the question, facts are drawn from its passages for
              // the global words (keywords and their topics' relation words), if they add any.
              topicSearch:
                globalText && globalText !== questionText
                  ? () => timed('global.passages', () => this.repository.searchChunksLexically(scope, globalText, topK))
                  : undefined,
              vectorWeight: weights.vector,
              vectorSearch: weights.vectorSearch,
            },
            topK,
            timed,
          )
        : nothing(),
      question ? this.nearestChunks(scope, question, topK, mode === 'mix' ? 'always' : weights.vectorSearch, passagesRead, timed) : [],
      passageSearch,
    ]);
    // A mode that walks the graph ranks passages with their links; naive by BM25 and names.
    const lexical = usesLocal ? local.passages : usesNaive ? passageFinds.slice(0, topK).map((p) => p.chunk) : [];

    const byId = <T extends { id: number }>(item: T) => item.id;
    const byChunk = (chunk: RetrievedChunk) => chunk.chunkId;
    const merged = {
      entities: roundRobin([local.entities, global.entities], byId, keepBestScore),
      relations: roundRobin([local.relations, global.relations], byId),
      // A question naming a time raises the passages dated then (question-time.ts).
      chunks: raiseToldInPeriod(
        fuseByRank(
          [
            { items: lexical, weight: weights.lexical },
            { items: naive, weight: weights.vector },
            // A graph mode's own list is its ranking; the weights are for what joins others.
            { items: local.chunks, weight: weights.local },
            { items: global.chunks, weight: mode === 'global' ? 1 : weights.global },
          ],
          byChunk,
          keepBestScores,
        ).map((fused) => fused.item),
        questionText,
      ),
    };
    const at = performance.now();
    const keep = request.keep ?? {};
    const kept = {
      entities: keep.entities === undefined ? merged.entities : merged.entities.slice(0, keep.entities),
      relations: keep.entities === undefined ? merged.relations : merged.relations.slice(0, keep.entities),
      chunks: keep.chunks === undefined ? merged.chunks : merged.chunks.slice(0, keep.chunks),
    };
    const cutByCount =
      kept.entities.length < merged.entities.length || kept.relations.length < merged.relations.length || kept.chunks.length < merged.chunks.length;
    const budgeted = applyBudgets(kept, budgets, keep.totalTokens);
    const fitted = { ...budgeted, truncated: budgeted.truncated || cutByCount };
    timings.budget = Math.round((performance.now() - at) * 100) / 100;
    timings.total = Math.round((performance.now() - started) * 100) / 100;
    return { ...fitted, timings };
  }

  /**
   * The chunks nearest the question's vector: searched beside BM25, or with a 'fallback' vector
   * search only when BM25 and the named documents found no passage (then after them). Mix
   * searches them always: there they are one vote of four in the fusion, and without it mix lost
   * three questions of 89 on the conversational set's held-out seed (record 0076).
   */
  private nearestChunks(
    scope: Scope,
    question: number[],
    topK: number,
    vectorSearch: ChannelWeights['vectorSearch'],
    passagesRead: Promise<{ lexical: ChunkHit[]; named: ChunkHit[] }>,
    timed: Timer,
  ): Promise<ChunkHit[]> {
    const search = () => timed('naive.chunks', () => this.repository.searchChunks(scope, question, topK));
    if (vectorSearch !== 'fallback') return search();
    return passagesRead.then(({ lexical, named }) => (lexical.length === 0 && named.length === 0 ? search() : []));
  }

  /**
   * The entities the question names (exact name matches) and those nearest to the low-level
   * vector → their live edges (one hop), and the chunks a personalized PageRank walk reaches
   * from those entities and the passages BM25 ranks first: the passages that mention them and,
   * through the entities those passages name, the second hop.
   */
  private async localPath(
    scope: Scope,
    input: { vector?: number[]; questionNames: string[]; passageSearch: Promise<RankedPassage[]> },
    topK: number,
    timed: Timer,
  ): Promise<GraphFinds> {
    // The entities the question names and those nearest to the vector: one statement.
    const { named: byName, nearest: byVector } = await timed('local.entities', () =>
      this.repository.seedEntities(scope, input.questionNames, input.vector, topK),
    );
    const entities = roundRobin([byName, byVector], (e) => e.id, keepBestScore).slice(0, topK);
    const passages = await input.passageSearch;
    if (entities.length === 0 && passages.length === 0) return nothing();
    const entityIds = entities.map((e) => e.id);
    const [edges, walked] = await Promise.all([
      entityIds.length > 0
        ? timed('local.edges', () => this.repository.edgesAround(scope, entityIds, topK * EDGES_PER_ENTITY_HIT))
        : [],
      this.walk(scope, entities, passages, topK, timed),
    ]);
    return {
      entities: entities.map(toEntity),
      relations: edges.map(toRelation),
      chunks: walked.chunks,
      passages: walked.passages.slice(0, topK).map((p) => p.chunk),
    };
  }

  /**
   * Chunks ranked by a personalized PageRank walk (graph-walk.ts) restarting at the seed
   * entities (by rank) and seed passages (the best of `ranked`, by relevance), half the restart
   * mass each when both are present. A chunk's score is the best similarity among the seeds it
   * was reached from. Beside it, `ranked` after one hop through the documents the seed passages
   * name (spreadThroughLinks).
   */
  private async walk(
    scope: Scope,
    entities: EntityHit[],
    ranked: RankedPassage[],
    topK: number,
    timed: Timer,
  ): Promise<{ chunks: RetrievedChunk[]; passages: RankedPassage[] }> {
    const passages = ranked.slice(0, WALK_SEED_PASSAGES).map((p) => p.chunk);
    const relevance = new Map(ranked.map((p) => [p.chunk.chunkId, p.relevance]));
    // The seed passages' own mentions come from extraction (entity_chunks) and, for the names
    // they spell out, from the graph's entity names (extraction misses many) and its documents'
    // names (a passage naming a document points to it, as a link would).
    const namesByPassage = passages.map((p) => new Set(namedInPassage(p.text)));
    const named = [...new Set(namesByPassage.flatMap((names) => [...names]))];
    const { linkedEntities, linkedDocuments, mentions: extracted } = await timed('local.walk', () =>
      this.repository.walkNeighbourhood(scope, {
        entityIds: entities.map((e) => e.id),
        chunkIds: passages.map((p) => p.chunkId),
        names: named,
        maxLinked: MAX_LINKED_ENTITIES,
      }),
    );
    const passagesNaming = (name: string) => passages.filter((_, i) => namesByPassage[i].has(name));
    // A document is a node of the walk too, apart from the entities (negative ids).
    const documentNode = (documentId: number) => -documentId;
    const links = [
      ...[...linkedEntities].flatMap(([entityId, name]) => passagesNaming(name).map((p) => ({ entityId, chunkId: p.chunkId }))),
      ...[...new Map(linkedDocuments.map((d) => [d.documentId, d.nameKey]))].flatMap(([documentId, key]) =>
        passagesNaming(key).map((p) => ({ entityId: documentNode(documentId), chunkId: p.chunkId })),
      ),
      ...linkedDocuments.map((d) => ({ entityId: documentNode(d.documentId), chunkId: d.chunkId })),
    ];
    const mentions = [...extracted, ...links];
    const entityShare = passages.length === 0 ? 1 : entities.length === 0 ? 0 : 0.5;
    const rankWeights = entities.map((_, rank) => 1 / (rank + 1));
    const rankTotal = rankWeights.reduce((a, b) => a + b, 0) || 1;
    const passageTotal = passages.reduce((sum, p) => sum + (relevance.get(p.chunkId) ?? 0), 0) || 1;
    const seeds = {
      entities: new Map(entities.map((e, rank) => [e.id, (entityShare * rankWeights[rank]) / rankTotal])),
      chunks: new Map(passages.map((p) => [p.chunkId, ((1 - entityShare) * (relevance.get(p.chunkId) ?? 0)) / passageTotal])),
    };
    const walkedIds = bestScored(personalizedPageRank(mentions, seeds), topK);

    // The documents the seed passages name, each stood for by its earliest chunk the walk read
    // (chunk ids grow with ingestion, so that is its first one unless it has more than the
    // walk reads) when none of its chunks is ranked already.
    const passageLinks: PassageLink[] = [];
    const standIn = new Map<number, number>();
    for (const d of linkedDocuments) {
      standIn.set(d.documentId, Math.min(standIn.get(d.documentId) ?? Infinity, d.chunkId));
    }
    for (const [documentId, key] of new Map(linkedDocuments.map((d) => [d.documentId, d.nameKey]))) {
      for (const p of passagesNaming(key)) passageLinks.push({ fromChunkId: p.chunkId, toDocumentId: documentId });
    }
    const rankedDocuments = new Set(ranked.map((p) => p.chunk.documentId));
    const standInIds = [...standIn].filter(([documentId]) => !rankedDocuments.has(documentId)).map(([, chunkId]) => chunkId);
    const fetchIds = [...new Set([...walkedIds, ...standInIds])];
    // The passages already read (BM25's, the named documents') are not read again: only the
    // chunks the walk reached beyond them, and no statement when there are none.
    const known = new Map(ranked.map(({ chunk: { lexicalScore: _bm25, ...row } }) => [row.chunkId, { ...row, score: 0 }]));
    const fetched = await timed('local.chunks', () => this.repository.chunksByIds(scope, fetchIds.filter((id) => !known.has(id))));
    const foundById = new Map<number, ChunkHit>([
      ...fetchIds.flatMap((id) => (known.has(id) ? [[id, known.get(id)!] as const] : [])),
      ...fetched.map((c) => [c.chunkId, c] as const),
    ]);
    const linkedChunks = new Map(
      [...standIn].flatMap(([documentId, chunkId]) => (foundById.has(chunkId) ? [[documentId, foundById.get(chunkId)!] as const] : [])),
    );

    const best = Math.max(0, ...entities.map((e) => e.score));
    const seedScore = new Map(passages.map((p) => [p.chunkId, p.lexicalScore]));
    const chunks = walkedIds.flatMap((id) => {
      const chunk = foundById.get(id);
      if (!chunk) return [];
      const lexicalScore = seedScore.get(chunk.chunkId);
      return [lexicalScore === undefined ? { ...chunk, score: best } : { ...chunk, score: best, lexicalScore }];
    });
    return { chunks, passages: spreadThroughLinks(ranked, passageLinks, linkedChunks) };
  }

  /**
   * Live facts that match the question and its high-level keywords word for word, among those
   * stated in BM25's best passages, fused with the facts nearest to the high-level vector →
   * their endpoints, and the chunks supporting either.
   */
  private async globalPath(
    scope: Scope,
    input: {
      vector?: number[];
      text?: string;
      passagesRead: Promise<{ lexical: ChunkHit[] }>;
      topicSearch?: () => Promise<ChunkHit[]>;
      vectorWeight: number;
      vectorSearch?: ChannelWeights['vectorSearch'];
    },
    topK: number,
    timed: Timer,
  ): Promise<GraphFinds> {
    const searchByVector = () => (input.vector ? timed('global.edges', () => this.repository.searchEdges(scope, input.vector!, topK)) : Promise.resolve([]));
    const fallback = input.vectorSearch === 'fallback';
    const [nearest, { lexical: passages }] = await Promise.all([fallback ? [] : searchByVector(), input.passagesRead]);
    const topicPassages = passages.length === 0 && input.topicSearch ? await input.topicSearch() : [];
    const sourceIds = [...new Set([...passages, ...topicPassages].slice(0, FACT_SOURCE_PASSAGES).map((p) => p.chunkId))];
    const byWords =
      input.text && sourceIds.length > 0
        ? await timed('global.lexical', () =>
            this.repository.searchEdgesLexically(scope, input.text!, sourceIds, topK),
          )
        : [];
    const byVector = fallback && byWords.length === 0 ? await searchByVector() : nearest;
    // A fact found by its words has no similarity; its endpoints count as a perfect match would.
    const edges = fuseByRank(
      [
        { items: byWords.map((e) => ({ ...e, score: 1 })), weight: 1 },
        { items: byVector, weight: input.vectorWeight },
      ],
      (e) => e.id,
      (kept, duplicate) => ((duplicate.score ?? 0) > (kept.score ?? 0) ? { ...kept, score: duplicate.score } : kept),
    )
      .map((fused) => fused.item)
      .slice(0, topK);
    if (edges.length === 0) return nothing();
    const endpointScore = new Map<number, number>();
    for (const edge of edges) {
      for (const id of [edge.sourceId, edge.targetId]) {
        endpointScore.set(id, Math.max(endpointScore.get(id) ?? -Infinity, edge.score ?? 0));
      }
    }
    const endpointIds = [...endpointScore.keys()];
    const edgeIds = edges.map((e) => e.id);
    const [endpoints, chunks] = await Promise.all([
      timed('global.entities', () => this.repository.entitiesByIds(scope, endpointIds)),
      timed('global.chunks', () =>
        this.repository.supportingChunks(scope, { entityIds: endpointIds, edgeIds, lead: 'edges', limit: topK }),
      ),
    ]);
    const edgeScores = edges.map((e) => e.score ?? 0);
    const lexicalScore = new Map([...topicPassages, ...passages].map((p) => [p.chunkId, p.lexicalScore]));
    const supporting = chunks.map((c) => {
      const chunk = toChunk(c, bestOf(c, endpointIds.map((id) => endpointScore.get(id) ?? 0), edgeScores));
      const bm25 = lexicalScore.get(c.chunkId);
      return bm25 === undefined ? chunk : { ...chunk, lexicalScore: bm25 };
    });
    return {
      entities: endpoints.map((e) => toEntity({ ...e, score: endpointScore.get(e.id) ?? 0 })),
      relations: edges.map(toRelation),
      // BM25's passages for the question lead, the facts' own chunks follow: ranked by the facts
      // alone, a fact of a weak passage outranked the passage that answers (recall@2 0.20 against
      // 0.63 for the passages on the development eval).
      chunks: fuseByRank(
        [
          { items: passages.map((p) => ({ ...p, score: 0 })), weight: 1 },
          { items: supporting, weight: GLOBAL_FACT_CHUNKS_WEIGHT },
        ],
        (c) => c.chunkId,
        keepBestScores,
      )
        .map((fused) => fused.item)
        .slice(0, topK),
      passages: [],
    };
  }
}

/** A chunk found by several searches keeps the best cosine and the best BM25 score. */
const keepBestScores = (kept: RetrievedChunk, duplicate: RetrievedChunk): RetrievedChunk => {
  const best = keepBestScore(kept, duplicate);
  const lexicalScore = Math.max(kept.lexicalScore ?? 0, duplicate.lexicalScore ?? 0);
  return lexicalScore > 0 ? { ...best, lexicalScore } : best;
};

type Timer = <T>(stage: string, work: () => Promise<T>) => Promise<T>;

/** The score of the best-ranked entity or edge a chunk supports (positions are 1-based). */
function bestOf(chunk: SupportingChunk, entityScores: number[], edgeScores: number[]): number {
  const scores = [
    chunk.entityPosition === null ? undefined : entityScores[chunk.entityPosition - 1],
    chunk.edgePosition === null ? undefined : edgeScores[chunk.edgePosition - 1],
  ].filter((s): s is number => s !== undefined);
  return scores.length === 0 ? 0 : Math.max(...scores);
}

const toEntity = (e: EntityHit): RetrievedEntity => ({
  id: e.id,
  name: e.name,
  type: e.type,
  description: e.description,
  score: e.score,
});

const toRelation = ({ score: _score, ...relation }: EdgeHit): RetrievedRelation => relation;

const toChunk = ({ entityPosition: _e, edgePosition: _x, ...chunk }: SupportingChunk, score: number): RetrievedChunk => ({
  ...chunk,
  score,
});

/**
 * The vector to search with, zero-padded to the narrowest width the store keeps that holds it
 * (cosine unchanged; vector-width.ts); undefined when absent or all zeros (cosine with the zero
 * vector is undefined: nothing to search for).
 */
function searchVector(vector: number[] | undefined, name: string): number[] | undefined {
  if (vector === undefined || vector.length === 0) return undefined;
  if (vector.length > EMBEDDING_DIMENSIONS) {
    throw new RangeError(`${name} has ${vector.length} dimensions; the store holds ${EMBEDDING_DIMENSIONS}`);
  }
  if (!vector.every(Number.isFinite)) throw new RangeError(`${name} holds a value that is not a finite number`);
  if (vector.every((x) => x === 0)) return undefined;
  return atStoredWidth(vector);
}

function checkTopK(topK: number): number {
  if (!Number.isInteger(topK) || topK < 1 || topK > MAX_TOP_K) {
    throw new RangeError(`topK must be an integer from 1 to ${MAX_TOP_K}, got ${topK}`);
  }
  return topK;
}

function checkBudgets(budgets: RetrievalBudgets): RetrievalBudgets {
  for (const [name, value] of Object.entries(budgets)) {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`budget ${name} must be a non-negative integer, got ${value}`);
  }
  return budgets;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
