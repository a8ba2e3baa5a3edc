import { answerLocally } from '../local/answerer';
import { detectPlacesLocally } from '../local/places';
import { keywordsLocally } from '../local/keywords';
import { LOCAL_EMBEDDING_DEFAULT_DIMENSIONS } from '../local/hashing.embedder';
import { countLocalTokens, inlineLocalTextWork, type LocalTextWork } from '../local/local-text-work';
import type { ReasoningLevel, Stage, TextSink, TokenUsage } from '../model.types';
import type { Answer, CitableSource, Extraction, Keywords } from '../tasks.types';
import type { CallContext } from '../gateway/call-context';
import type { ModelGateway } from '../gateway/model-gateway';
import type { ModelChoice } from '../gateway/model-router';
import { answerSchema, extractionSchema, keywordsSchema, placesSchema, summarySchema } from './stage-schemas';
import { citedIds, textPieces } from './inline-citations';
import {
  ANSWER_STREAM_SYSTEM,
  ANSWER_SYSTEM,
  answerUser,
  DETECT_GEO_SYSTEM,
  EXTRACT_SYSTEM,
  extractUser,
  KEYWORDS_SYSTEM,
  SUMMARIZE_SYSTEM,
} from './stage-prompts';

export interface StageOptions {
  /** A request's `provider:model` for the stage (gb `models`). */
  model?: string;
  /** A request's reasoning level for the stage (gb `reasoning`); none by default. */
  reasoning?: ReasoningLevel;
}

/** Output caps per stage: generous enough for real replies, bounded for cost reservations. */
export const MAX_OUTPUT_TOKENS: Record<Exclude<Stage, 'embed'>, number> = {
  extract: 4096,
  summarize: 400,
  keywords: 300,
  answer: 2048,
  query: 2048,
  detect_geo: 300,
};

/** The offline extractor reads at most this much of a question (about 300 words): ~100 ms of a CPU thread at most. */
export const OFFLINE_KEYWORDS_MAX_CHARS = 2_000;
/**
 * A question up to this long has its offline keywords read on the calling thread (~2-5 ms of
 * CPU), a longer one on the CPU pool. A question waiting for a pool thread waited behind whatever
 * another tenant's ingestion was running there (a chunk's extraction, ~0.1-0.3 s): beside one
 * tenant's PDFs, every other tenant's question paid it.
 */
export const KEYWORDS_INLINE_MAX_CHARS = 256;
/** As many keywords as a model's reply may hold (keywordsSchema). */
const KEYWORDS_MAX = { high_level: 20, low_level: 30 } as const;

/**
 * The pipeline's model-backed steps. Each goes to the LLM the router picks for its stage, or,
 * when that is the offline `local` provider, to its NLP/extractive counterpart. Both are
 * metered through the gateway.
 */
export class StageRunner {
  constructor(
    private readonly gateway: ModelGateway,
    private readonly localWork: LocalTextWork = inlineLocalTextWork,
    /** The offline hashing embedder's width (LOCI_LOCAL_EMBEDDING_DIM), for answers embedded where they run. */
    private readonly localEmbeddingDimensions: number = LOCAL_EMBEDDING_DEFAULT_DIMENSIONS,
  ) {}

  async extract(ctx: CallContext, text: string, options: StageOptions & { documentDate?: Date } = {}): Promise<Extraction> {
    const choice = this.gateway.router.choose('extract', options.model);
    if (choice.provider === 'local') {
      return this.localAsync(ctx, 'extract', choice, text, async () => {
        const extraction = await this.localWork.extract(text, { referenceDate: options.documentDate });
        return { value: extraction, output: JSON.stringify(extraction) };
      });
    }
    const { value } = await this.gateway.chatJson(
      ctx,
      'extract',
      {
        system: EXTRACT_SYSTEM,
        messages: [{ role: 'user', content: extractUser(text, options.documentDate) }],
        maxOutputTokens: MAX_OUTPUT_TOKENS.extract,
        reasoning: options.reasoning,
        model: options.model,
      },
      extractionSchema,
    );
    return value;
  }

  async summarize(ctx: CallContext, text: string, options: StageOptions = {}): Promise<string> {
    const choice = this.gateway.router.choose('summarize', options.model);
    if (choice.provider === 'local') {
      return this.localAsync(ctx, 'summarize', choice, text, async () => {
        const summary = await this.localWork.summarize(text);
        return { value: summary, output: summary };
      });
    }
    const { value } = await this.gateway.chatJson(
      ctx,
      'summarize',
      {
        system: SUMMARIZE_SYSTEM,
        messages: [{ role: 'user', content: text }],
        maxOutputTokens: MAX_OUTPUT_TOKENS.summarize,
        reasoning: options.reasoning,
        model: options.model,
      },
      summarySchema,
    );
    return value.summary;
  }

  async keywords(ctx: CallContext, question: string, options: StageOptions = {}): Promise<Keywords> {
    const choice = this.gateway.router.choose('keywords', options.model);
    if (choice.provider === 'local') {
      return this.localAsync(ctx, 'keywords', choice, question, async () => {
        const keywords = await this.offlineKeywords(question);
        return { value: keywords, output: [...keywords.high_level, ...keywords.low_level].join(' ') };
      });
    }
    const { value } = await this.gateway.chatJson(
      ctx,
      'keywords',
      {
        system: KEYWORDS_SYSTEM,
        messages: [{ role: 'user', content: question }],
        maxOutputTokens: MAX_OUTPUT_TOKENS.keywords,
        reasoning: options.reasoning,
        model: options.model,
      },
      keywordsSchema,
    );
    return value;
  }

  /**
   * The offline extractor's keywords, whatever model the keywords stage is configured with, for
   * callers that must never reach a model (an API key's question, by the query contract). It is
   * not a model call and costs nothing, so it is not metered: no ledger row, no token count.
   */
  async offlineKeywords(question: string): Promise<Keywords> {
    // A question may be 64 KiB (a pasted text); its keywords are in its opening words, and
    // parsing all of it held a CPU thread for seconds to minutes, on a request anyone can send.
    const text = question.slice(0, OFFLINE_KEYWORDS_MAX_CHARS);
    const keywords = text.length <= KEYWORDS_INLINE_MAX_CHARS ? keywordsLocally(text) : await this.localWork.keywords(text);
    return { high_level: keywords.high_level.slice(0, KEYWORDS_MAX.high_level), low_level: keywords.low_level.slice(0, KEYWORDS_MAX.low_level) };
  }

  /** gb query's `detect_geo`: the places the question mentions, as written. */
  async detectGeo(ctx: CallContext, question: string, options: StageOptions = {}): Promise<string[]> {
    const choice = this.gateway.router.choose('detect_geo', options.model);
    if (choice.provider === 'local') {
      return this.localAsync(ctx, 'detect_geo', choice, question, async () => {
        const places = detectPlacesLocally(question);
        return { value: places, output: JSON.stringify({ places }) };
      });
    }
    const { value } = await this.gateway.chatJson(
      ctx,
      'detect_geo',
      {
        system: DETECT_GEO_SYSTEM,
        messages: [{ role: 'user', content: question }],
        maxOutputTokens: MAX_OUTPUT_TOKENS.detect_geo,
        reasoning: options.reasoning,
        model: options.model,
      },
      placesSchema,
    );
    return value.places;
  }

  /** Answers from citable sources (stage `answer` for /v1/query, `query` for gb). */
  async answer(
    ctx: CallContext,
    question: string,
    sources: CitableSource[],
    options: StageOptions & { stage?: 'answer' | 'query'; asOf?: Date; knownAt?: Date } = {},
  ): Promise<Answer> {
    const stage = options.stage ?? 'answer';
    const choice = this.gateway.router.choose(stage, options.model);
    if (choice.provider === 'local') {
      const embedChoice = this.gateway.router.choose('embed');
      if (embedChoice.provider === 'local') {
        // All of it where localWork runs it (sentence splitting takes ~0.3 s over a 64 KB context);
        // the embedding call it made is put on record here, as gateway.embed would have.
        return this.localAsync(ctx, stage, choice, question + sources.map((s) => s.text).join('\n'), async () => {
          const { answer, embedInputTokens } = await this.localWork.answerWithHashing(question, sources, this.localEmbeddingDimensions);
          await this.gateway.local(ctx, 'embed', embedChoice, async () => ({
            value: undefined,
            usage: { inputTokens: embedInputTokens, outputTokens: 0, thinkingTokens: 0 },
          }));
          return { value: answer, output: answer.answer };
        });
      }
      // A provider's embedder is reached through the gateway, so the answer runs on this thread.
      const embedder = {
        provider: embedChoice.provider,
        model: embedChoice.model,
        dimensions: 0,
        embed: async ({ texts }: { texts: string[] }) => ({
          vectors: (await this.gateway.embed(ctx, texts)).vectors,
          usage: { inputTokens: 0 },
          model: embedChoice.model,
        }),
      };
      return this.localAsync(ctx, stage, choice, question + sources.map((s) => s.text).join('\n'), async () => {
        const answer = await answerLocally(question, sources, embedder);
        return { value: answer, output: answer.answer };
      });
    }
    const { value } = await this.gateway.chatJson(
      ctx,
      stage,
      {
        system: ANSWER_SYSTEM,
        messages: [{ role: 'user', content: answerUser(question, sources, options.asOf, options.knownAt) }],
        maxOutputTokens: MAX_OUTPUT_TOKENS[stage],
        reasoning: options.reasoning,
        model: options.model,
      },
      answerSchema,
    );
    return resolveCitations(value.answer, value.cited, sources);
  }

  /**
   * The answer stage streamed: `onText` gets the answer as it is written. A provider writes prose
   * with inline citation markers (ANSWER_STREAM_SYSTEM), collected once it has ended; the offline
   * answerer writes its answer at once, handed on in pieces of a few words.
   */
  async answerStream(
    ctx: CallContext,
    question: string,
    sources: CitableSource[],
    onText: TextSink,
    options: StageOptions & { stage?: 'answer' | 'query'; asOf?: Date; knownAt?: Date } = {},
  ): Promise<Answer> {
    const stage = options.stage ?? 'answer';
    const choice = this.gateway.router.choose(stage, options.model);
    if (choice.provider === 'local') {
      const answer = await this.answer(ctx, question, sources, options);
      for (const piece of textPieces(answer.answer)) onText(piece);
      return answer;
    }
    const completion = await this.gateway.chatStream(
      ctx,
      stage,
      {
        system: ANSWER_STREAM_SYSTEM,
        messages: [{ role: 'user', content: answerUser(question, sources, options.asOf, options.knownAt) }],
        maxOutputTokens: MAX_OUTPUT_TOKENS[stage],
        reasoning: options.reasoning,
        model: options.model,
      },
      onText,
    );
    return resolveCitations(completion.text, citedIds(completion.text), sources);
  }

  private localAsync<T>(
    ctx: CallContext,
    stage: Stage,
    choice: ModelChoice,
    input: string,
    work: () => Promise<{ value: T; output: string }>,
  ): Promise<T> {
    return this.gateway.local(ctx, stage, choice, async () => {
      const { value, output } = await work();
      const [inputTokens, outputTokens] = await countLocalTokens(this.localWork, input, output);
      const usage: TokenUsage = { inputTokens, outputTokens, thinkingTokens: 0 };
      return { value, usage };
    });
  }
}

/** Ids the model made up are dropped: a citation always points at a real source. */
function resolveCitations(answer: string, cited: string[], sources: CitableSource[]): Answer {
  const known = new Set(sources.map((s) => s.id));
  const unresolved = new Set(cited.filter((id) => !known.has(id)));
  return { answer, cited: [...new Set(cited.filter((id) => known.has(id)))], unresolvedCitations: unresolved.size };
}
