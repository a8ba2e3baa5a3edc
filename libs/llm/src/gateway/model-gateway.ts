import { inSpan, type SpanHandle } from '@loci/common';
import type { LlmSettings } from '@loci/config';
import { atStoredWidth, InferenceOutcome, InferencesRepository, NewInference } from '@loci/db';
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { z } from 'zod';
import type { LociMetrics } from '@loci/metrics';
import { costMicros, PriceTable } from '../metering/prices';
import { estimateChatInputTokens, estimateEmbeddingTokens } from '../metering/token-counter';
import { ModelCallError } from '../model-call.error';
import type { ChatCompletion, ChatMessage, OutputSchema, ReasoningLevel, Stage, TextSink, TokenUsage } from '../model.types';
import { THINKING_BUDGET_TOKENS } from '../providers/anthropic.chat-model';
import type { CallContext } from './call-context';
import { parseModelJson } from './json-output';
import { ModelChoice, ModelRouter } from './model-router';
import { outputSchemaFor } from './output-schema';
import { ProviderRegistry } from './provider-registry';
import type { SpendGuard } from './spend-guard';

export interface ChatCall {
  system: string;
  messages: ChatMessage[];
  maxOutputTokens: number;
  reasoning?: ReasoningLevel;
  /** A request's `provider:model` for this stage, where its contract allows one. */
  model?: string;
}

export interface MeteredCompletion extends ChatCompletion {
  choice: ModelChoice;
  costMicros: number;
}

const NO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, thinkingTokens: 0 };

/**
 * The one door to the model providers. Every call is priced, written to the inference ledger
 * before it is made (status `pending`, with its worst-case cost) and completed after it, so a
 * process that dies mid-call still leaves its possible spend on record. A call of the offline
 * local provider cannot spend, so it is written once, when it has ended (one statement
 * instead of two on every API-key question's embedding).
 */
export class ModelGateway {
  /** Bounds the provider calls in flight in this process (LOCI_MODEL_CONCURRENCY). */
  private readonly inFlight: pLimit.Limit;

  constructor(
    readonly router: ModelRouter,
    private readonly registry: ProviderRegistry,
    private readonly prices: PriceTable,
    private readonly ledger: InferencesRepository,
    private readonly settings: LlmSettings,
    private readonly spendGuard?: SpendGuard,
    private readonly metrics?: LociMetrics,
  ) {
    this.inFlight = pLimit(settings.concurrency);
  }

  /**
   * A chat call whose text is used as is. Truncated or empty output is a typed error. `json`
   * asks for a JSON reply, of `outputSchema`'s shape when given.
   */
  async chat(ctx: CallContext, stage: Stage, call: ChatCall, json = false, outputSchema?: OutputSchema): Promise<MeteredCompletion> {
    return this.chatCall(ctx, stage, call, { json, outputSchema });
  }

  /**
   * A plain-text chat call streamed: `onText` gets the reply as it is written. Metered like any
   * call (worst case reserved and on record first), then settled to the usage the stream
   * reported; a stream cut short (the context's signal: its client went away) settles to the
   * usage seen so far and throws `aborted`. A cut (max_tokens) or empty stream throws as `chat` does.
   */
  async chatStream(ctx: CallContext, stage: Stage, call: ChatCall, onText: TextSink): Promise<MeteredCompletion> {
    return this.chatCall(ctx, stage, call, { json: false, onText });
  }

  private async chatCall(
    ctx: CallContext,
    stage: Stage,
    call: ChatCall,
    how: { json: boolean; outputSchema?: OutputSchema; onText?: TextSink },
  ): Promise<MeteredCompletion> {
    const { json, outputSchema, onText } = how;
    const choice = this.router.choose(stage, call.model);
    if (choice.provider === 'local') {
      throw new Error(`stage ${stage} is served by the local provider; use the stage runner`);
    }
    const reasoning = call.reasoning ?? 'none';
    const thinkingBudget = reasoning === 'none' ? 0 : THINKING_BUDGET_TOKENS[reasoning];
    const estimate = this.cost(choice, {
      inputTokens: estimateChatInputTokens(choice.provider, call.system, call.messages) + outputSchemaTokens(choice.provider, outputSchema),
      outputTokens: call.maxOutputTokens + thinkingBudget,
      thinkingTokens: 0,
    });
    const { result, cost } = await this.metered(ctx, stage, choice, reasoning, estimate, async (apiKey) => {
      // Queued behind LOCI_MODEL_CONCURRENCY while its client left: not made at all.
      if (ctx.signal?.aborted) {
        throw new ModelCallError('aborted', choice.provider, choice.model, stage, 'the caller went away before the call was made');
      }
      const model = this.registry.chatModel(choice);
      const request = {
        stage,
        system: call.system,
        messages: call.messages,
        maxOutputTokens: call.maxOutputTokens,
        reasoning,
        json,
        outputSchema,
        timeoutMs: stage === 'extract' ? this.settings.timeoutsMs.extract : this.settings.timeoutsMs.chat,
        apiKey,
        signal: ctx.signal,
      };
      const completion = onText ? await model.stream(request, onText) : await model.complete(request);
      // Providers throw for truncated or empty replies (with the usage they were billed for).
      return { usage: completion.usage, model: completion.model, result: completion };
    });
    return { ...result, choice, costMicros: cost };
  }

  /**
   * A chat call whose reply must be JSON matching `schema`. The provider is asked for
   * structured output of that schema; near-misses are mended (`parseModelJson`); a reply still
   * unusable is sent back once with what was wrong; a second failure is a `bad_output` error.
   */
  async chatJson<S extends z.ZodType>(
    ctx: CallContext,
    stage: Stage,
    call: ChatCall,
    schema: S,
  ): Promise<{ value: z.output<S>; completions: MeteredCompletion[] }> {
    const shape = outputSchemaFor(stage, schema);
    const first = await this.chat(ctx, stage, call, true, shape);
    const parsed = parseModelJson(first.text, schema);
    if (parsed.ok) return { value: parsed.value, completions: [first] };
    const repair: ChatCall = {
      ...call,
      messages: [
        ...call.messages,
        { role: 'assistant', content: first.text },
        {
          role: 'user',
          content: `Your reply could not be used: ${parsed.problem}. Reply again with only the JSON object, nothing else.`,
        },
      ],
    };
    const second = await this.chat(ctx, stage, repair, true, shape);
    const reparsed = parseModelJson(second.text, schema);
    if (reparsed.ok) return { value: reparsed.value, completions: [first, second] };
    throw new ModelCallError(
      'bad_output',
      second.choice.provider,
      second.choice.model,
      stage,
      `the model's JSON was unusable twice: ${reparsed.problem}`,
    );
  }

  /**
   * Embeds texts (batched by the provider), returning vectors as wide as the store's columns and
   * what the call cost (as written to the ledger).
   */
  async embed(
    ctx: CallContext,
    texts: string[],
    model?: string,
  ): Promise<{ vectors: number[][]; choice: ModelChoice; costMicros: number }> {
    const choice = this.router.choose('embed', model);
    // The offline embedder costs nothing: no estimate, whose token count of a chunk's texts (a
    // thousand entity descriptions) would hold this thread for a quarter of a second.
    const estimate =
      choice.provider === 'local'
        ? 0
        : this.cost(choice, { inputTokens: estimateEmbeddingTokens(choice.provider, texts), outputTokens: 0, thinkingTokens: 0 });
    const { result, cost } = await this.metered(ctx, 'embed', choice, null, estimate, async (apiKey) => {
      const embedded = await this.registry.embedder(choice).embed({ texts, timeoutMs: this.settings.timeoutsMs.embed, apiKey });
      return { usage: { ...NO_USAGE, inputTokens: embedded.usage.inputTokens }, model: embedded.model, result: embedded };
    });
    // Zero-padded to the narrowest width the store keeps that holds them (cosine is unchanged).
    return { vectors: result.vectors.map(atStoredWidth), choice, costMicros: cost };
  }

  /**
   * Runs work of the offline local provider under the ledger too (cost 0), so that every model
   * call of the process, local or not, is on record.
   */
  async local<T>(ctx: CallContext, stage: Stage, choice: ModelChoice, work: () => Promise<{ value: T; usage: TokenUsage }>) {
    const { result } = await this.metered(ctx, stage, choice, null, 0, async () => {
      const done = await work();
      return { usage: done.usage, model: choice.model, result: done.value };
    });
    return result;
  }

  /**
   * A trace span around the whole call (ledger rows, reservation, the provider's HTTP request
   * as its child, which carries the trace on in `traceparent`), in OpenTelemetry's GenAI names
   * plus Loci's stage and billing. Names, counts and money only: no prompt, reply or tenant id.
   */
  private metered<T>(
    ctx: CallContext,
    stage: Stage,
    choice: ModelChoice,
    reasoning: ReasoningLevel | null,
    estimatedCostMicros: number,
    call: (apiKey: string | undefined) => Promise<{ usage: TokenUsage; model: string; result: T }>,
  ): Promise<{ result: T; cost: number }> {
    const operation = stage === 'embed' ? 'embeddings' : 'chat';
    return inSpan(
      `${operation} ${choice.model}`,
      {
        'gen_ai.operation.name': operation,
        'gen_ai.provider.name': choice.provider,
        'gen_ai.request.model': choice.model,
        'loci.stage': stage,
        'loci.billing': choice.provider === 'local' ? 'platform' : ctx.billedTo,
        'loci.reasoning': reasoning ?? undefined,
        'loci.estimated_cost_micros': estimatedCostMicros,
      },
      (span) => this.meteredCall(ctx, stage, choice, reasoning, estimatedCostMicros, call, span),
      { kind: choice.provider === 'local' ? 'internal' : 'client' },
    );
  }

  private async meteredCall<T>(
    ctx: CallContext,
    stage: Stage,
    choice: ModelChoice,
    reasoning: ReasoningLevel | null,
    estimatedCostMicros: number,
    call: (apiKey: string | undefined) => Promise<{ usage: TokenUsage; model: string; result: T }>,
    span: SpanHandle,
  ): Promise<{ result: T; cost: number }> {
    const apiKey = this.ownKeyFor(ctx, stage, choice);
    const key = { tenantId: ctx.tenantId, requestId: ctx.requestId, callIndex: ctx.nextCallIndex() };
    const entry: NewInference = {
      ...key,
      kind: ctx.kind,
      stage,
      provider: choice.provider,
      model: choice.model,
      reasoning,
      billedTo: choice.provider === 'local' ? 'platform' : ctx.billedTo,
      spendLimited: ctx.spendLimited,
      estimatedCostMicros,
      documentId: ctx.documentId,
    };
    if (choice.provider === 'local') return this.meteredLocally(entry, choice, call, span);
    // Reserve the worst case first: a call that does not fit the caps is never made.
    const reservation =
      this.spendGuard && ctx.spendLimited
        ? // A fresh id per call: request ids are not unique across databases or callers, and a
          // reused reservation id would be taken as already settled.
          await this.spendGuard.reserve(ctx.tenantId, randomUUID(), estimatedCostMicros)
        : undefined;
    try {
      await this.ledger.begin({ ...entry, ...(reservation ? { createdAt: reservation.at } : {}) });
    } catch (error) {
      // Not on record, so not made: it cost nothing. A reservation is renewed until settled,
      // so every path after the reserve settles it.
      await reservation?.settle(0);
      throw error;
    }
    const started = performance.now();
    let outcome: Awaited<ReturnType<typeof call>>;
    try {
      outcome = await this.inFlight(() => call(apiKey));
    } catch (error) {
      const failure = this.failed(choice, error, started);
      await reservation?.settle(failure.costMicros);
      await this.ledger.complete(key, failure);
      this.count(entry, failure, span);
      throw error;
    }
    const done = this.succeeded(choice, outcome, started);
    await reservation?.settle(done.costMicros);
    await this.ledger.complete(key, done);
    this.count(entry, done, span);
    return { result: outcome.result, cost: done.costMicros };
  }

  /** A local call: made first, then written to the ledger in one row, however it ended. */
  private async meteredLocally<T>(
    entry: NewInference,
    choice: ModelChoice,
    call: (apiKey: undefined) => Promise<{ usage: TokenUsage; model: string; result: T }>,
    span: SpanHandle,
  ): Promise<{ result: T; cost: number }> {
    const started = performance.now();
    let outcome: Awaited<ReturnType<typeof call>>;
    try {
      outcome = await call(undefined);
    } catch (error) {
      const failure = this.failed(choice, error, started);
      await this.ledger.record(entry, failure);
      this.count(entry, failure, span);
      throw error;
    }
    const done = this.succeeded(choice, outcome, started);
    await this.ledger.record(entry, done);
    this.count(entry, done, span);
    return { result: outcome.result, cost: done.costMicros };
  }

  /**
   * The Prometheus series follow the ledger: counted once the call is on record, under the model
   * asked for (the router's, from the price table), not a provider's alias of it.
   */
  private count(entry: NewInference, outcome: InferenceOutcome, span: SpanHandle): void {
    this.metrics?.modelCall(
      { provider: entry.provider, model: entry.model, stage: entry.stage, billing: entry.billedTo },
      outcome,
    );
    span.setAttributes({
      'gen_ai.response.model': outcome.model ?? entry.model,
      'gen_ai.usage.input_tokens': outcome.tokensIn,
      'gen_ai.usage.output_tokens': outcome.tokensOut,
      'loci.usage.thinking_tokens': outcome.tokensThinking,
      'loci.cost_micros': outcome.costMicros,
      'loci.status': outcome.status,
    });
  }

  private succeeded(choice: ModelChoice, outcome: { usage: TokenUsage; model: string }, started: number): InferenceOutcome {
    const { usage, model } = outcome;
    return {
      status: 'ok',
      tokensIn: usage.inputTokens,
      tokensOut: usage.outputTokens,
      tokensThinking: usage.thinkingTokens,
      costMicros: this.cost(choice, usage),
      latencyMs: Math.round(performance.now() - started),
      model: model !== choice.model ? model : undefined,
    };
  }

  /**
   * A failed call costs what the provider billed for it: nothing, unless it answered (cut or
   * unusable output), in which case the error carries the usage.
   */
  private failed(choice: ModelChoice, error: unknown, started: number): InferenceOutcome {
    const usage = error instanceof ModelCallError && error.usage ? error.usage : NO_USAGE;
    return {
      status: 'error',
      tokensIn: usage.inputTokens,
      tokensOut: usage.outputTokens,
      tokensThinking: usage.thinkingTokens,
      costMicros: this.cost(choice, usage),
      latencyMs: Math.round(performance.now() - started),
      error: error instanceof Error ? error.message.slice(0, 500) : 'unknown error',
    };
  }

  /** A tenant billed `own_key` must never fall back to the platform's key. */
  private ownKeyFor(ctx: CallContext, stage: Stage, choice: ModelChoice): string | undefined {
    if (!ctx.ownKeys || choice.provider === 'local') return undefined;
    const key = ctx.ownKeys[choice.provider];
    if (!key) {
      throw new ModelCallError(
        'not_configured',
        choice.provider,
        choice.model,
        stage,
        `the tenant pays with its own key but has no ${choice.provider} key`,
      );
    }
    return key;
  }

  private cost(choice: ModelChoice, usage: TokenUsage): number {
    const price = this.prices.priceOf(choice.spec);
    if (!price) throw new Error(`no price for ${choice.spec}`); // the router only returns priced models
    return costMicros(price, usage);
  }
}

/**
 * A reply schema is input too (a tool definition, a response format), and Anthropic adds its
 * tool-use system prompt (up to 346 tokens on current models) when tools are given: both are in
 * the worst case reserved against the caps.
 */
const ANTHROPIC_TOOL_USE_SYSTEM_TOKENS = 346;

function outputSchemaTokens(provider: string, schema: OutputSchema | undefined): number {
  if (!schema) return 0;
  const definition = estimateChatInputTokens(provider, JSON.stringify(schema), []);
  return definition + (provider === 'anthropic' ? ANTHROPIC_TOOL_USE_SYSTEM_TOKENS : 0);
}

