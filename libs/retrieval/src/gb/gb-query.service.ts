import { Inject, Injectable, Optional } from '@nestjs/common';
import { z } from 'zod';
import { Settings, SETTINGS } from '@loci/config';
import { DomainError, NotFoundError, ValidationError } from '@loci/common';
import { Database, DATABASE, GraphsRepository, GraphWritesRepository, isStoreUnavailable, ReadRouter, vectorTierOf } from '@loci/db';
import { gazetteer } from '@loci/geo';
import {
  CallContext,
  CitableSource,
  ModelGateway,
  OwnKeysService,
  ReasoningLevel,
  StageRunner,
  UnknownModelError,
} from '@loci/llm';
import { Scope } from '../retrieval.queries';
import { channelWeightsFor } from '../retrieval.types';
import { withoutStaleStatements } from '../stale-statements';
import { keywordTerms, normalizeName } from './gb-keywords';
import { buildEvidence, GbContext, GbEvidence, GbPassage, gbQuerySystem, gbQueryUser, renderGbTime, selectPassages } from './gb-query.context';
import { GbEdge, GbEntity, GbQueryRepository, VectorMatch } from './gb-query.repository';
import { GbNearby, GbNearbyResult, joinNearby, NEARBY_LIMIT } from './gb-nearby';
import { DEFAULT_GB_QUERY_SETTINGS, GB_NO_INFORMATION_ANSWER, GB_QUERY_SETTINGS, GbQuerySettings } from './gb-query.settings';
import { QuestionTurns } from '../question-turns';

export type GbQueryStage = 'query' | 'detect_geo';

export interface GbQueryInput {
  userId: string;
  question: string;
  dataset: string;
  reasoning?: Partial<Record<GbQueryStage, ReasoningLevel>>;
  models?: Partial<Record<GbQueryStage, string>>;
  /** The nearby search (server with geo on, asked for by geo_nearby / geo_radius_km). */
  geo?: { radiusKm: number };
  /** `as_of` (valid time): retrieval sees what was true at this instant, by all Loci knows now; the prompt gets it as the time. */
  asOf?: Date;
  /** `known_at` (record time): retrieval sees only what Loci had recorded by this instant. */
  knownAt?: Date;
  /** `include_history`: the ended and superseded facts around the seeds join the context, marked. */
  includeHistory?: boolean;
}

/** One step of the request's trajectory: timing and counts. */
export interface GbQueryStep {
  name: 'keyword_seeds' | 'search_vectors' | 'expand' | 'passages' | 'detect_geo' | 'nearby' | 'answer';
  ms: number;
  counts: Record<string, number | string>;
}

export interface GbQueryResult {
  answer: string;
  evidence: GbEvidence;
  /** `provider:model` that wrote the answer; null when none was asked (nothing to answer from). */
  model: string | null;
  steps: GbQueryStep[];
  /** The nearby search, when it was asked for and the question has a place. */
  nearby?: GbNearbyResult;
}

/** The question's embedding could not be searched (the contract's 502). */
export class VectorSearchError extends DomainError {
  readonly code = 'model_call_failed';
}

/** At most this many superseded or ended facts are read to take their statements out of an answer's sources. */
const ENDED_FACTS_READ = 50;

const idList = z
  .array(z.union([z.number(), z.string()]))
  .nullish()
  .transform((list) => (list ?? []).map((id) => Number(id)).filter((id) => Number.isInteger(id)));

/** The `query` stage's reply. */
export const gbAnswerSchema = z.object({
  answer: z.string().refine((answer) => answer.trim().length > 0, 'answer must not be empty'),
  entities: idList,
  edges: idList,
  passages: idList,
});

/**
 * gb `query` (POST /v1/gb/query): retrieval exactly as the contract's steps 1–2 (keyword seeds,
 * the four vector indexes, fallback, one hop, passages), then the `query` stage answers from
 * the rendered context and cites ids, which become the evidence (step 4).
 */
@Injectable()
export class GbQueryService {
  /** The contract's numbers; adjustable (tests). */
  readonly settings: GbQuerySettings;
  private readonly repository: GbQueryRepository;
  private readonly nearbySearch: GbNearby;

  constructor(
    @Inject(DATABASE) database: Database,
    private readonly graphs: GraphsRepository,
    private readonly gateway: ModelGateway,
    private readonly stages: StageRunner,
    private readonly ownKeys: OwnKeysService,
    @Optional() @Inject(GB_QUERY_SETTINGS) overrides?: Partial<GbQuerySettings>,
    // BM25's cut, one setting for both surfaces (LOCI_BM25_POSTINGS_PER_TERM); the default without.
    @Optional() @Inject(SETTINGS) settings?: Pick<Settings, 'query'>,
    // Tenants take turns for retrieval (question-turns.ts); absent where the service is built alone.
    @Optional() private readonly turns?: QuestionTurns,
    // Streaming replicas for retrieval's reads (DATABASE_READ_URL); absent, reads go to `database`.
    @Optional() reads?: ReadRouter,
  ) {
    this.repository = new GbQueryRepository(database, { bm25PostingsPerTerm: settings?.query.bm25PostingsPerTerm, reads });
    this.nearbySearch = new GbNearby(database, new GraphWritesRepository(), gazetteer());
    this.settings = { ...DEFAULT_GB_QUERY_SETTINGS, ...(overrides ?? {}) };
  }

  /** `steps` receives the trajectory as it goes, so a caller still has it when a step fails. */
  async query(tenantId: string, requestId: string, input: GbQueryInput, steps: GbQueryStep[] = []): Promise<GbQueryResult> {
    this.checkModels(input.models);
    const graph = await this.graphs.findGbGraph(tenantId, input.userId, input.dataset);
    if (!graph) throw new NotFoundError(`dataset "${input.dataset}" does not exist for user_id "${input.userId}"`);
    const scope: Scope = {
      tenantId,
      graphId: graph.id,
      vectorTier: vectorTierOf(graph),
      ...(input.asOf ? { asOf: input.asOf } : {}),
      ...(input.knownAt ? { knownAt: input.knownAt } : {}),
    };
    const ctx = await this.ownKeys.callContext(tenantId, requestId, 'query');
    const timed = async <T>(name: GbQueryStep['name'], work: () => Promise<T>, counts: (value: T) => GbQueryStep['counts']) => {
      const started = performance.now();
      const ms = () => Math.round((performance.now() - started) * 100) / 100;
      let value: T;
      try {
        value = await work();
      } catch (error) {
        steps.push({ name, ms: ms(), counts: { failed: 1 } });
        throw error;
      }
      steps.push({ name, ms: ms(), counts: counts(value) });
      return value;
    };

    const retrieve = () => this.retrieve(ctx, scope, input.question, timed, input.includeHistory);
    const context = await (this.turns ? this.turns.take(tenantId, retrieve) : retrieve());
    const nearby = input.geo ? await this.nearby(ctx, scope, input, input.geo.radiusKm, context, timed) : undefined;
    if (context.entities.length === 0 && context.edges.length === 0 && context.passages.length === 0) {
      return { answer: GB_NO_INFORMATION_ANSWER, evidence: { entities: [], edges: [], passages: [] }, model: null, steps, nearby };
    }
    const answered = await timed(
      'answer',
      () => this.answer(ctx, scope, input, context),
      (a) => ({ model: a.model, entities: a.cited.entities.length, edges: a.cited.edges.length, passages: a.cited.passages.length }),
    );
    return { answer: answered.answer, evidence: buildEvidence(context, answered.cited), model: answered.model, steps, nearby };
  }

  /**
   * The `detect_geo` stage, then the geo entities near the question's places and its matched
   * place entities; they and their live facts join `context`. Undefined when there is no anchor.
   */
  private async nearby(
    ctx: CallContext,
    scope: Scope,
    input: GbQueryInput,
    radiusKm: number,
    context: GbContext,
    timed: Timer,
  ): Promise<GbNearbyResult | undefined> {
    const places = await timed(
      'detect_geo',
      () => this.stages.detectGeo(ctx, input.question, { model: input.models?.detect_geo, reasoning: input.reasoning?.detect_geo ?? 'none' }),
      (p) => ({ places: p.length }),
    );
    const found = await timed(
      'nearby',
      async () => {
        const result = await this.nearbySearch.search(scope, { places, matchedIds: context.matchedIds ?? [], radiusKm, limit: NEARBY_LIMIT });
        const ids = result.nearby.map((n) => n.entity.id);
        const around = await this.repository.edgesAround(scope, ids, this.settings.maxExpandedEdges);
        const missing = [...new Set(around.flatMap((e) => [e.sourceId, e.targetId]))];
        const joined = joinNearby(context, result, around, await this.repository.entitiesByIds(scope, missing));
        return { ...result, joined };
      },
      (r) => ({ anchors: r.anchors.length, nearby: r.nearby.length, unresolved: r.unresolved.length, edges: r.joined.edges, entities: r.joined.entities }),
    );
    const { joined: _joined, ...result } = found;
    return result.anchors.length > 0 ? result : undefined;
  }

  /** Steps 1–2 of the contract: what is sent to the model. */
  async retrieve(ctx: CallContext, scope: Scope, question: string, timed: Timer, includeHistory = false): Promise<GbContext> {
    const s = this.settings;
    const terms = keywordTerms(question, s);
    // BM25 over the dataset's chunks (Loci's, not the contract's) runs beside the contract's
    // steps and joins them at the passages; its failure is reported there, not left unhandled.
    const lexicalRead = this.lexicalMatches(scope, question);
    lexicalRead.catch(() => undefined);
    const keywordSeeds = await timed(
      'keyword_seeds',
      () =>
        this.repository.keywordSeeds(scope, {
          normalizedQuestion: normalizeName(question),
          terms,
          wholeNameScore: s.wholeNameScore,
          termInNameScore: s.termInNameScore,
          termInDescriptionScore: s.termInDescriptionScore,
          limit: s.keywordSeeds,
        }),
      (seeds) => ({ terms: terms.length, seeds: seeds.length }),
    );

    const matches = await timed(
      'search_vectors',
      async () => {
        // One embeddings request for the question (ledger: stage embed).
        const { vectors } = await this.gateway.embed(ctx, [question]);
        const vector = vectors[0];
        if (!vector || vector.every((x) => x === 0)) return { entities: [], edges: [], chunks: [], summaries: [] };
        try {
          const [entities, edges, chunks, summaries] = await Promise.all([
            this.repository.search(scope, 'entities', vector, s.similarEntities, s.minSimilarity),
            this.repository.search(scope, 'edges', vector, s.similarEdges, s.minSimilarity),
            this.repository.search(scope, 'chunks', vector, s.similarChunks, s.minSimilarity),
            this.repository.search(scope, 'summaries', vector, s.similarSummaries, s.minSimilarity),
          ]);
          return { entities, edges, chunks, summaries };
        } catch (error) {
          // The store down is a 503 of its own; the reason stays in the log (the driver's message
          // carries the statement and the question's vector, never for the client).
          if (isStoreUnavailable(error)) throw error;
          throw Object.assign(new VectorSearchError('the vector store could not be searched'), { cause: error });
        }
      },
      (m) => ({ entities: m.entities.length, edges: m.edges.length, chunks: m.chunks.length, summaries: m.summaries.length }),
    );

    const graph = await timed(
      'expand',
      () => this.expand(scope, keywordSeeds, matches.entities, matches.edges, includeHistory),
      (g) => ({
        seeds: g.seeds,
        fallback: g.fallback ? 1 : 0,
        entities: g.entities.length,
        edges: g.edges.length,
        ...(includeHistory ? { history: g.edges.filter((e) => e.history).length } : {}),
      }),
    );
    // The seeds the question matched (not the fallback's recent entities): the geo search's matched ones.
    const matchedIds = graph.fallback ? [] : graph.seedIds;

    const passages = await timed(
      'passages',
      async () => {
        const lexical = await lexicalRead;
        return { lexical: lexical.length, picked: await this.passages(scope, matches.chunks, matches.summaries, lexical) };
      },
      (p) => ({
        passages: p.picked.length,
        with_text: p.picked.filter((x) => x.text !== undefined).length,
        ...(s.lexicalChunks > 0 ? { lexical: p.lexical } : {}),
      }),
    );
    return { entities: graph.entities, edges: graph.edges, passages: passages.picked, matchedIds };
  }

  /** Seeds (keyword, then similarity; else the most recent), one hop, the similar facts, endpoints. */
  private async expand(scope: Scope, keywordSeeds: GbEntity[], similarEntities: VectorMatch[], similarEdges: VectorMatch[], includeHistory: boolean) {
    const s = this.settings;
    const [resolvedSimilar, resolvedFacts] = await Promise.all([
      this.repository.entitiesByIds(scope, similarEntities.map((m) => m.id)),
      this.repository.liveEdgesByIds(scope, similarEdges.map((m) => m.id)),
    ]);
    const inOrder = <T extends { id: number }>(rows: T[], order: VectorMatch[]) => {
      const byId = new Map(rows.map((row) => [row.id, row]));
      return order.map((m) => byId.get(m.id)).filter((row): row is T => row !== undefined);
    };
    const seeds = new Map<number, GbEntity>();
    for (const entity of [...keywordSeeds, ...inOrder(resolvedSimilar, similarEntities)]) if (!seeds.has(entity.id)) seeds.set(entity.id, entity);
    const facts = inOrder(resolvedFacts, similarEdges);
    let fallback = false;
    if (seeds.size === 0 && facts.length === 0) {
      fallback = true;
      for (const entity of await this.repository.recentEntities(scope, s.fallbackSeeds)) seeds.set(entity.id, entity);
    }
    // History (include_history) is read beside the one hop, with the same cap of its own.
    const at = scope.asOf ?? scope.knownAt ?? new Date();
    const [around, history] = await Promise.all([
      this.repository.edgesAround(scope, [...seeds.keys()], s.maxExpandedEdges),
      includeHistory ? this.repository.historyAround(scope, [...seeds.keys()], s.maxExpandedEdges) : [],
    ]);
    const edges = new Map<number, GbEdge>(around.map((edge) => [edge.id, edge]));
    for (const fact of facts) if (!edges.has(fact.id)) edges.set(fact.id, fact); // even over the cap
    for (const fact of history) if (!edges.has(fact.id)) edges.set(fact.id, fact);
    if (includeHistory) for (const [id, edge] of edges) edges.set(id, markHistory(edge, at));

    const entities = new Map(seeds);
    const missing = [...new Set([...edges.values()].flatMap((e) => [e.sourceId, e.targetId]))].filter((id) => !entities.has(id));
    for (const entity of await this.repository.entitiesByIds(scope, missing)) entities.set(entity.id, entity);
    // An edge is given with both of its entities; one whose endpoint is not visible is left out.
    const kept = [...edges.values()].filter((edge) => entities.has(edge.sourceId) && entities.has(edge.targetId));
    return { entities: [...entities.values()].map((e) => asKnownAt(e, scope.knownAt)), edges: kept, seeds: seeds.size, seedIds: [...seeds.keys()], fallback };
  }

  /** The chunks BM25 ranks best for the question (none when the channel is off, LOCI_GB_LEXICAL_CHUNKS=0). */
  private async lexicalMatches(scope: Scope, question: string): Promise<VectorMatch[]> {
    try {
      return await this.repository.lexicalChunks(scope, question, this.settings.lexicalChunks);
    } catch (error) {
      if (isStoreUnavailable(error)) throw error;
      throw Object.assign(new VectorSearchError('the passages could not be searched'), { cause: error });
    }
  }

  private async passages(scope: Scope, chunkMatches: VectorMatch[], summaryMatches: VectorMatch[], lexicalMatches: VectorMatch[]): Promise<GbPassage[]> {
    // Resolve first (a deleted chunk is dropped), then select: the 3 + 5 count resolved chunks.
    const rows = await this.repository.chunksByIds(scope, [...new Set([...chunkMatches, ...summaryMatches, ...lexicalMatches].map((m) => m.id))]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    const resolved = (matches: VectorMatch[]) => matches.filter((m) => byId.has(m.id));
    const weights = channelWeightsFor(this.gateway.router.choose('embed').spec);
    const picked = selectPassages(
      resolved(chunkMatches),
      resolved(summaryMatches),
      { withText: this.settings.passagesWithText, summaryOnly: this.settings.passagesSummaryOnly },
      { matches: resolved(lexicalMatches), weights, hasSummary: (id) => (byId.get(id)?.summary ?? null) !== null },
    );
    return picked.map(({ id, score, withText, withSummary }) => {
      const chunk = byId.get(id)!;
      return {
        chunk,
        score,
        ...(withSummary && chunk.summary !== null ? { summary: chunk.summary } : {}),
        ...(withText ? { text: chunk.text } : {}),
      };
    });
  }

  /** Step 3: the `query` stage (or, when it is the offline local provider, the extractive answerer). */
  private async answer(ctx: CallContext, scope: Scope, input: GbQueryInput, context: GbContext) {
    const model = input.models?.query;
    const choice = this.gateway.router.choose('query', model);
    if (choice.provider === 'local') {
      let sources = localSources(context, input.asOf);
      // A question about the present is answered from what is true now (an instant or history asked for keep everything).
      if (!input.asOf && !input.knownAt && !input.includeHistory) sources = await this.withoutEndedFacts(scope, context, sources);
      const answered = await this.stages.answer(ctx, input.question, sources, { stage: 'query', model });
      const cited = { entities: [] as number[], edges: [] as number[], passages: [] as number[] };
      for (const id of answered.cited) {
        const [kind, n] = id.split(':');
        if (kind === 'entity') cited.entities.push(Number(n));
        else if (kind === 'edge') cited.edges.push(Number(n));
        else if (kind === 'passage') cited.passages.push(Number(n));
      }
      return { answer: answered.answer, cited, model: choice.spec };
    }
    const { value, completions } = await this.gateway.chatJson(
      ctx,
      'query',
      {
        system: gbQuerySystem({ asOf: input.asOf, knownAt: input.knownAt, includeHistory: input.includeHistory }),
        messages: [{ role: 'user', content: gbQueryUser(input.question, context, input.asOf ?? new Date(), input.knownAt) }],
        maxOutputTokens: this.settings.maxOutputTokens,
        reasoning: input.reasoning?.query ?? 'none',
        model,
      },
      gbAnswerSchema,
    );
    return {
      answer: value.answer.trim(),
      cited: { entities: value.entities, edges: value.edges, passages: value.passages },
      model: completions[completions.length - 1]?.choice.spec ?? choice.spec,
    };
  }

  /**
   * The sources without the statements of the facts about the context's entities that were
   * superseded or ended (withoutStaleStatements): one read of those facts, capped.
   */
  private async withoutEndedFacts(scope: Scope, context: GbContext, sources: CitableSource[]): Promise<CitableSource[]> {
    const ids = [...new Set([...context.entities.map((e) => e.id), ...context.edges.flatMap((x) => [x.sourceId, x.targetId])])];
    const ended = await this.repository.historyAround(scope, ids, ENDED_FACTS_READ);
    return withoutStaleStatements(sources, ended.map((x) => x.description), context.edges.map((x) => x.description));
  }

  /** A model the request names must exist and have a price (400 otherwise). */
  private checkModels(models: GbQueryInput['models']): void {
    for (const [stage, name] of Object.entries(models ?? {})) {
      if (!name) continue;
      try {
        this.gateway.router.choose(stage as GbQueryStage, name);
      } catch (error) {
        if (error instanceof UnknownModelError) throw new ValidationError(`models.${stage}: ${error.message}`);
        throw error;
      }
    }
  }
}

type Timer = <T>(name: GbQueryStep['name'], work: () => Promise<T>, counts: (value: T) => GbQueryStep['counts']) => Promise<T>;

/**
 * An entity as the prompt may show it at instant `asOf`: descriptions are merged in place, so
 * one changed since may tell what was learned later ("Alice joined Globex."), and is left out.
 */
function asKnownAt(entity: GbEntity, asOf: Date | undefined): GbEntity {
  return asOf && entity.updatedAt > asOf && entity.description !== null ? { ...entity, description: null } : entity;
}

/**
 * What an edge was at instant `at`, when it was not live then: superseded by then (expired_at),
 * or ended by then (invalid_at). A live edge is returned as it is.
 */
export function markHistory(edge: GbEdge, at: Date): GbEdge {
  if (edge.expiredAt && edge.expiredAt <= at) return { ...edge, history: 'superseded' };
  if (edge.invalidAt && edge.invalidAt <= at) return { ...edge, history: 'ended' };
  return edge;
}

/**
 * The context as plain sentences for the extractive answerer, each citable by its kind and id.
 * At an instant (`asOf`), an end after it is not yet one.
 */
function localSources(context: GbContext, asOf?: Date): CitableSource[] {
  const endedBy = (x: GbEdge) => x.invalidAt !== null && (!asOf || x.invalidAt <= asOf);
  return [
    ...context.edges.map((x) => ({
      id: `edge:${x.id}`,
      kind: 'fact' as const,
      text:
        (x.description ?? `${x.source} ${x.relation.replace(/_/g, ' ')} ${x.target}.`) +
        (endedBy(x) ? ` (no longer true since ${renderGbTime(x.invalidAt!)})` : '') +
        (x.history === 'superseded' ? ' (that was before; replaced by newer knowledge)' : ''),
    })),
    ...context.passages.map((p) => ({ id: `passage:${p.chunk.id}`, text: p.text ?? p.summary ?? '' })),
    // The nearby search's distances, as the prompt's <nearby> section gives them to a model.
    ...(context.nearby ?? []).map((n) => ({
      id: `entity:${n.entity.id}`,
      text: `${n.entity.name} is ${n.distanceKm.toFixed(1)} km from ${n.anchor.name}.`,
    })),
    ...context.entities
      .filter((e) => e.description)
      .map((e) => ({ id: `entity:${e.id}`, kind: 'description' as const, text: `${e.name}: ${e.description}` })),
  ].filter((source) => source.text.trim().length > 0);
}

