import { Inject, Injectable } from '@nestjs/common';
import { Settings, SETTINGS } from '@loci/config';
import type { Principal } from '@loci/auth';
import { GraphsRepository, InferencesRepository, RequestLogsRepository, TenantsRepository } from '@loci/db';
import { CallContext, CitableSource, Keywords, ModelGateway, OwnKeysService, StageRunner } from '@loci/llm';
import {
  ChannelWeights,
  channelWeightsFor,
  QuestionTurns,
  RetrievalMode,
  RetrievalService,
  RetrievedChunk,
  RetrievedContext,
} from '@loci/retrieval';
import { tenantIdOf } from '../tenant-scope';
import { contextAsAnswerText, graphBlock } from './context-rendering';
import { AnswerLanguage, noAnswerSentence } from './no-answer';
import { daysAgo, freshnessOf } from './freshness';
import { ContextChunk, QueryBody, QueryResponse, SourceItem } from './query.dto';

const foundNothing = (context: RetrievedContext) =>
  context.chunks.length === 0 && context.entities.length === 0 && context.relations.length === 0;

/** `metadata.model` when no model wrote the answer (the contract's name for it). */
export const NO_LLM_MODEL = 'context-mode-no-llm';

/**
 * Why no model answered (`metadata.no_answer_reason`): nothing was ever uploaded
 * (`empty_graph`), nothing was known yet at the question's `as_of` though the graph has
 * content now (`empty_at_known_at`: none recorded yet by the question's `known_at`), or nothing found was close enough to the question.
 */
export type NoAnswerReason = 'empty_graph' | 'empty_at_known_at' | 'no_relevant_context';

const EXCERPT_CHARS = 300;

/** Tenants whose default graph id is kept in memory; past this many the memo starts over. */
const MAX_REMEMBERED_GRAPHS = 10_000;

/**
 * Where a streamed question's answer goes as it is written (`"stream": true`), and how its
 * client going away is seen.
 */
export interface AnswerSink {
  /** Aborted when the client disconnects: the model call in flight is stopped, none is started. */
  signal: AbortSignal;
  /** The passages the answer may cite (with `include_sources`), before any of its text. */
  sources(sources: SourceItem[]): void;
  text(piece: string): void;
}

interface Step {
  name: string;
  ms: number;
}

/**
 * POST /v1/query. Who answers follows the contract's ADR-082: a dashboard session (JWT) gets an
 * answer written by the `answer` stage, unless it asks for context only; an API-key client
 * never reaches the keywords or answer stages, whatever its body says, and gets the retrieved
 * material instead.
 */
@Injectable()
export class QueryService {
  /**
   * Default graph id by tenant. A tenant's default graph is created once and is only ever
   * deleted with its tenant, so its id can be kept instead of read on every question.
   */
  private readonly defaultGraphIds = new Map<string, number>();

  constructor(
    private readonly graphs: GraphsRepository,
    private readonly retrieval: RetrievalService,
    private readonly stages: StageRunner,
    private readonly gateway: ModelGateway,
    private readonly ownKeys: OwnKeysService,
    private readonly ledger: InferencesRepository,
    private readonly requestLogs: RequestLogsRepository,
    private readonly tenants: TenantsRepository,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly turns: QuestionTurns,
  ) {}

  /**
   * With a sink, a model-written answer is streamed to it; the response is returned all the same.
   * `language` is the one the request asked for (Accept-Language) for the no-answer sentence.
   */
  async query(principal: Principal, requestId: string, body: QueryBody, sink?: AnswerSink, language?: AnswerLanguage): Promise<QueryResponse> {
    const started = performance.now();
    const steps: Step[] = [];
    const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      const t0 = performance.now();
      try {
        return await work();
      } finally {
        steps.push({ name, ms: Math.round(performance.now() - t0) });
      }
    };

    const tenantId = tenantIdOf(principal);
    const viaModel = principal.kind === 'jwt';
    const graphId = await this.defaultGraphId(tenantId);
    const given = body.hl_keywords != null && body.ll_keywords != null;
    // Every caller gets the mode it asked for. An API key's question without both keyword lists
    // has them from the offline extractor, which calls no model (the contract's "never calls our
    // model" holds); the contract's own fallback to naive threw the graph's recall away.
    const mode: RetrievalMode = body.mode;
    // Whether a language model (keywords, answer stage) was asked; if not, the question's
    // embedding was the only model call and its cost is known here.
    let askedModel = keywordsFromModel(viaModel, given, mode);
    // An empty graph is answered without a model call. Whether the graph is empty is asked
    // first only when something that costs money would come before the search (the keywords
    // stage, a provider's embedding); otherwise only when the search found nothing at all,
    // which saves a statement on every question of a graph that has content.
    const checkFirst = askedModel || this.gateway.router.choose('embed').provider !== 'local';
    const asOf = body.as_of ?? undefined;
    const knownAt = body.known_at ?? undefined;
    const hasContent = () => timed('check_graph', () => this.retrieval.graphHasContent(tenantId, graphId, knownAt));
    // A graph's tier changes when a bulk load begins, on whichever instance it was asked, so it
    // is read for every question (one primary-key read, beside the others; the id is kept).
    const [ctx, emptyGraph, vectorTier] = await Promise.all([
      // An API-key question is never limited (its only model call is the question's embedding).
      this.ownKeys.callContext(tenantId, requestId, 'query', undefined, {
        spendLimited: viaModel,
        tenant: principal.kind === 'api_key' ? principal.tenant : undefined,
        signal: sink?.signal,
      }),
      checkFirst ? hasContent().then((has) => !has) : false,
      this.graphs.vectorTier(tenantId, graphId),
    ]);

    // Empty at the question's instant: whether anything was ever uploaded tells the two reasons apart.
    const emptyReason = async (): Promise<NoAnswerReason> =>
      knownAt && (await this.retrieval.graphHasContent(tenantId, graphId)) ? 'empty_at_known_at' : 'empty_graph';
    const noAnswer = async (reason: NoAnswerReason): Promise<QueryResponse> => ({
      answer: noAnswerSentence(language, await this.tenantLanguage(principal)),
      sources: [],
      metadata: { ...emptyMetadata(mode, NO_LLM_MODEL), no_answer_reason: reason },
      context: null,
    });

    let response: QueryResponse;
    let embedCostMicros = 0;
    if (emptyGraph) {
      askedModel = false;
      response = await noAnswer(await emptyReason());
    } else {
      // The question's work on this machine takes the tenant's turn (question-turns.ts): its
      // offline keywords, a local embedder's vectors and the retrieval, so that another tenant's
      // flood of questions queues behind itself. A step that waits on a model over the network
      // (a dashboard question's keywords, a provider's embeddings) runs before the turn, holding no slot.
      const localEmbedder = this.gateway.router.choose('embed').provider === 'local';
      const prepare = async () => {
        const keywords = await timed('keywords', () => this.keywords(ctx, body, mode, viaModel, given));
        const embedded = await timed('embed', () => this.vectors(ctx, body.query, mode, keywords));
        return { keywords, embedded };
      };
      const retrieve = ({ keywords, embedded }: Awaited<ReturnType<typeof prepare>>) =>
        timed('retrieve', () =>
          this.retrieval.retrieve({
            tenantId,
            graphId,
            vectorTier,
            mode,
            questionText: body.query,
            highLevelKeywords: keywords.high_level,
            weights: this.channelWeights(),
            asOf,
            knownAt,
            ...(body.top_k != null ? { topK: body.top_k } : {}),
            keep: { entities: body.top_k ?? undefined, chunks: body.chunk_top_k ?? undefined, totalTokens: body.max_total_tokens ?? undefined },
            ...embedded.vectors,
          }),
        );
      const early = askedModel || !localEmbedder ? await prepare() : undefined;
      const { embedded, context } = await this.turns.take(tenantId, async () => {
        const prepared = early ?? (await prepare());
        return { embedded: prepared.embedded, context: await retrieve(prepared) };
      });
      embedCostMicros = embedded.costMicros;
      if (foundNothing(context) && !checkFirst && !(await hasContent())) {
        response = await noAnswer(await emptyReason());
      } else if (!this.relevant(context)) {
        response = await noAnswer('no_relevant_context');
      } else if (!viaModel || body.context_only) {
        response = this.contextResponse(mode, context, body.context_only);
      } else {
        askedModel = true;
        response = await timed('answer', () => this.answer(ctx, { tenantId, graphId }, body, mode, context, sink));
      }
    }

    // Tokens of the language-model calls (keywords, answer); the question's embedding is the
    // only other call, and the one an API-key question makes. The ledger is read back only
    // when a language model was asked.
    const spent = askedModel
      ? await this.ledger.listByRequest(tenantId, requestId)
      : [{ stage: 'embed', tokensIn: 0, tokensOut: 0, costMicros: embedCostMicros }];
    const chat = spent.filter((row) => row.stage !== 'embed');
    response.metadata.tokens_in = chat.reduce((sum, row) => sum + row.tokensIn, 0);
    response.metadata.tokens_out = chat.reduce((sum, row) => sum + row.tokensOut, 0);
    response.metadata.latency_ms = Math.round(performance.now() - started);
    await this.requestLogs.insert({
      tenantId,
      requestId,
      route: '/v1/query',
      principalKind: principal.kind,
      principalId: principal.kind === 'api_key' ? principal.keyId : principal.userId,
      status: 200,
      latencyMs: response.metadata.latency_ms,
      steps: {
        mode_asked: body.mode,
        mode_used: mode,
        ...(asOf ? { as_of: asOf.toISOString() } : {}),
        ...(knownAt ? { known_at: knownAt.toISOString() } : {}),
        model: response.metadata.model,
        no_answer_reason: response.metadata.no_answer_reason,
        tokens_in: response.metadata.tokens_in,
        tokens_out: response.metadata.tokens_out,
        cost_micros: spent.reduce((sum, row) => sum + row.costMicros, 0),
        steps,
      },
    });
    return response;
  }

  private async defaultGraphId(tenantId: string): Promise<number> {
    const known = this.defaultGraphIds.get(tenantId);
    if (known !== undefined) return known;
    const graph = await this.graphs.defaultGraph(tenantId);
    if (this.defaultGraphIds.size >= MAX_REMEMBERED_GRAPHS) this.defaultGraphIds.clear();
    this.defaultGraphIds.set(tenantId, graph.id);
    return graph.id;
  }

  /**
   * Vector search always finds something; what it found is relevant only if its best match
   * clears LOCI_QUERY_MIN_SIMILARITY, or if a chunk shares lexemes with the question (BM25
   * found it). Otherwise no model is asked (no_relevant_context).
   */
  private relevant(context: RetrievedContext): boolean {
    if (context.chunks.some((c) => (c.lexicalScore ?? 0) > 0)) return true;
    const best = Math.max(-1, ...context.chunks.map((c) => c.score), ...context.entities.map((e) => e.score));
    return best >= this.settings.query.minSimilarity;
  }

  /** The fusion weights measured for the configured embedder: an offline one's vectors are weak evidence, BM25 leads. */
  private channelWeights(): ChannelWeights {
    return channelWeightsFor(this.gateway.router.choose('embed').spec);
  }

  /**
   * Keywords from the request when both lists are given (no model call); for a dashboard
   * question the keywords stage (the platform's model); for an API key's the offline extractor.
   */
  private async keywords(ctx: CallContext, body: QueryBody, mode: RetrievalMode, viaModel: boolean, given: boolean): Promise<Keywords> {
    if (given) return { high_level: body.hl_keywords ?? [], low_level: body.ll_keywords ?? [] };
    if (mode === 'naive') return { high_level: [], low_level: [] };
    if (keywordsFromModel(viaModel, given, mode)) return this.stages.keywords(ctx, body.query);
    return this.stages.offlineKeywords(body.query);
  }

  /** Every vector the mode needs, in one embeddings request, and what that request cost. */
  private async vectors(ctx: CallContext, question: string, mode: RetrievalMode, keywords: Keywords) {
    const wanted: Array<['questionVector' | 'lowLevelVector' | 'highLevelVector', string]> = [];
    if (mode === 'naive' || mode === 'mix') wanted.push(['questionVector', question]);
    if (mode !== 'naive' && keywords.low_level.length > 0) wanted.push(['lowLevelVector', keywords.low_level.join(', ')]);
    if (mode !== 'naive' && keywords.high_level.length > 0) wanted.push(['highLevelVector', keywords.high_level.join(', ')]);
    if (wanted.length === 0) return { vectors: {}, costMicros: 0 };
    const { vectors, costMicros, choice } = await this.gateway.embed(ctx, wanted.map(([, text]) => text));
    // Rows record the embedder that wrote them (the same spec): only those are compared.
    return { vectors: { ...Object.fromEntries(wanted.map(([key], i) => [key, vectors[i]])), embeddingModel: choice.spec }, costMicros };
  }

  private async answer(
    ctx: CallContext,
    { tenantId, graphId }: { tenantId: string; graphId: number },
    body: QueryBody,
    mode: RetrievalMode,
    context: RetrievedContext,
    sink: AnswerSink | undefined,
  ): Promise<QueryResponse> {
    // Passages are cited by their reference id; the graph facts come along as one more source.
    const passages = context.chunks.map((chunk, i) => ({ referenceId: String(i + 1), chunk }));
    let sources: CitableSource[] = passages.map((p) => ({ id: p.referenceId, text: p.chunk.text }));
    const graph = graphBlock(context);
    if (graph) sources.push({ id: 'kg', text: graph });
    // A question about the present is answered from what is true now; one at an instant keeps everything.
    if (!body.as_of && !body.known_at) sources = await this.retrieval.withoutEndedFacts(tenantId, graphId, context, sources);
    // Streamed, the sources go first, before the answer says which it cites: the passages the
    // model is given, each with the reference id its citations use. A passage that stated only
    // facts no longer true was taken out above: it is not offered, as the model never saw it.
    const given = new Set(sources.map((source) => source.id));
    const offered = passages.filter((p) => given.has(p.referenceId));
    sink?.sources(body.include_sources ? offered.map((p) => sourceItem(p.chunk, p.referenceId)) : []);
    const asOf = { asOf: body.as_of ?? undefined, knownAt: body.known_at ?? undefined };
    const answer = sink
      ? await this.stages.answerStream(ctx, body.query, sources, (piece) => sink.text(piece), asOf)
      : await this.stages.answer(ctx, body.query, sources, asOf);
    const cited = new Set(answer.cited);
    return {
      answer: answer.answer,
      sources: body.include_sources
        ? offered.filter((p) => cited.has(p.referenceId)).map((p) => sourceItem(p.chunk, p.referenceId))
        : [],
      metadata: {
        ...emptyMetadata(mode, this.gateway.router.choose('answer').spec),
        unresolved_sources_count: answer.unresolvedCitations ?? 0,
      },
      context: null,
    };
  }

  private contextResponse(mode: RetrievalMode, context: RetrievedContext, contextOnly: boolean): QueryResponse {
    return {
      answer: contextOnly ? '' : contextAsAnswerText(context),
      sources: [],
      metadata: emptyMetadata(mode, NO_LLM_MODEL),
      context: contextOnly
        ? {
            chunks: context.chunks.map(contextChunk),
            entities: context.entities.map((e) => ({ name: e.name, type: e.type, description: e.description })),
            relations: context.relations.map((r) => ({
              source: r.source,
              target: r.target,
              description: r.description,
              keywords: r.keywords,
              weight: r.weight,
            })),
            truncated: context.truncated,
          }
        : null,
    };
  }

  /**
   * The tenant's `answer_language`, as the principal carries it (read with the API key, or with
   * the session's user, in the same statement); read here only for a principal made elsewhere.
   */
  private async tenantLanguage(principal: Principal): Promise<string | null> {
    if (principal.kind === 'api_key' && principal.tenant) return principal.tenant.answerLanguage;
    if (principal.kind !== 'api_key' && principal.tenantAnswerLanguage !== undefined) return principal.tenantAnswerLanguage;
    return (await this.tenants.findById(tenantIdOf(principal)))?.answerLanguage ?? null;
  }
}

/** Whether the keywords stage (a language model) is asked: a dashboard question without both lists, not naive. */
function keywordsFromModel(viaModel: boolean, given: boolean, mode: RetrievalMode): boolean {
  return viaModel && !given && mode !== 'naive';
}

function emptyMetadata(mode: RetrievalMode, model: string): QueryResponse['metadata'] {
  return { mode, model, tokens_in: 0, tokens_out: 0, latency_ms: 0, unresolved_sources_count: 0, no_answer_reason: null };
}

function contextChunk(chunk: RetrievedChunk): ContextChunk {
  const days = daysAgo(chunk.documentDate, chunk.loadedAt);
  return {
    text: chunk.text,
    document_id: String(chunk.documentId),
    chunk_id: String(chunk.chunkId),
    document_name: chunk.documentName,
    document_date: chunk.documentDate?.toISOString() ?? null,
    loaded_days_ago: days,
    freshness: freshnessOf(days),
  };
}

function sourceItem(chunk: RetrievedChunk, referenceId: string): SourceItem {
  const { text, ...rest } = contextChunk(chunk);
  return { ...rest, excerpt: text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text, reference_id: referenceId };
}
