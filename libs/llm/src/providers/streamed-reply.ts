import { countTokens } from '../metering/token-counter';
import { ModelCallError } from '../model-call.error';
import type { ChatCompletion, ProviderName, StopReason, TextSink, TokenUsage } from '../model.types';
import { SdkErrorClasses, toModelCallError } from './sdk-errors';

interface StreamedCall {
  provider: ProviderName;
  model: string;
  stage: string;
}

/**
 * A streamed reply as far as it has come: the text (handed on as it arrives), and the usage the
 * provider's events reported. When the stream ends early (the client went away, the deadline,
 * a broken connection) the provider has still billed what it generated, so the usage of a cut
 * stream is what was reported, raised to what was received: output counted from the text and
 * thinking that arrived, input estimated from the request when no event said it.
 */
export class StreamedReply {
  text = '';
  private thinking = '';
  private started = false;
  private reported: Partial<TokenUsage> = {};

  constructor(
    private readonly onText: TextSink,
    /** The request's input tokens as estimated before the call, for a stream that never said. */
    private readonly estimatedInputTokens: () => number,
  ) {}

  /**
   * Reads a provider's stream into the reply, event by event, under one deadline (the caller's
   * signal and the timeout over the whole stream). Every way it can end early is a ModelCallError
   * carrying the usage so far.
   */
  async read<E>(
    call: StreamedCall,
    sdk: SdkErrorClasses,
    limits: { timeoutMs: number; signal?: AbortSignal },
    open: (signal: AbortSignal) => Promise<AsyncIterable<E>>,
    onEvent: (event: E) => void,
  ): Promise<void> {
    const deadline = new StreamDeadline(limits.timeoutMs, limits.signal);
    try {
      for await (const event of await open(deadline.signal)) {
        this.started = true; // from now on the call was billed, whatever happens next
        onEvent(event);
      }
      // The SDKs end the iteration quietly when their signal aborts: the reply is cut all the same.
      if (deadline.signal.aborted) throw deadline.signal.reason;
    } catch (error) {
      throw this.failure(error, () => toModelCallError(error, sdk, call), call, deadline);
    } finally {
      deadline.clear();
    }
  }

  /**
   * The completion of a stream that ended, with its final usage; a cut (max_tokens) or empty
   * reply throws, carrying that usage, as a whole reply would.
   */
  completion(call: StreamedCall, stopReason: StopReason, said: string, model: string, text = this.text): ChatCompletion {
    const usage = this.finalUsage();
    const fail = (failure: 'bad_output' | 'truncated', why: string) =>
      new ModelCallError(failure, call.provider, call.model, call.stage, `${call.provider} ${call.model} (${call.stage}): ${why}`, undefined, { usage });
    if (stopReason === 'max_tokens') throw fail('truncated', `the stream stopped at ${said}; a cut answer is not used`);
    if (text.trim() === '') throw fail('bad_output', `empty streamed reply (${said})`);
    return { text, stopReason, model, usage };
  }

  append(text: string | null | undefined): void {
    if (!text) return;
    this.text += text;
    this.onText(text);
  }

  appendThinking(text: string | null | undefined): void {
    if (text) this.thinking += text;
  }

  /** Usage an event reported; later reports replace earlier ones field by field (they are cumulative). */
  report(usage: Partial<TokenUsage>): void {
    for (const [field, value] of Object.entries(usage) as Array<[keyof TokenUsage, number | undefined]>) {
      if (typeof value === 'number') this.reported[field] = value;
    }
  }

  /** The usage of a stream that ended normally: what it reported, estimated where it said nothing. */
  finalUsage(): TokenUsage {
    const { inputTokens, outputTokens, thinkingTokens } = this.reported;
    if (inputTokens !== undefined && outputTokens !== undefined) return { inputTokens, outputTokens, thinkingTokens: thinkingTokens ?? 0 };
    return this.usageSoFar();
  }

  /** The usage of a stream cut short: reported, raised to what was received. */
  usageSoFar(): TokenUsage {
    const received = countTokens(this.text) + countTokens(this.thinking);
    return {
      inputTokens: this.reported.inputTokens ?? this.estimatedInputTokens(),
      outputTokens: Math.max(this.reported.outputTokens ?? 0, received),
      thinkingTokens: Math.max(this.reported.thinkingTokens ?? 0, countTokens(this.thinking)),
    };
  }

  /**
   * The error for a stream that failed: `aborted` when the caller went away, `timeout` at the
   * deadline, else the SDK's error mapped as for any call; with the usage so far once anything
   * arrived (a request refused before its first event was not billed).
   */
  private failure(error: unknown, mapped: () => ModelCallError, call: StreamedCall, deadline: StreamDeadline): ModelCallError {
    const usage = this.started ? this.usageSoFar() : undefined;
    const what = `${call.provider} ${call.model} (${call.stage})`;
    if (deadline.callerAborted()) {
      return new ModelCallError('aborted', call.provider, call.model, call.stage, `${what}: the caller went away mid-stream`, undefined, { cause: error, usage });
    }
    if (deadline.expired()) {
      return new ModelCallError('timeout', call.provider, call.model, call.stage, `${what}: the stream did not end within the timeout`, undefined, {
        cause: error,
        usage,
      });
    }
    const base = mapped();
    return new ModelCallError(base.failure, base.provider, base.model, base.stage, base.message, base.status, { cause: error, usage: base.usage ?? usage });
  }
}

/**
 * One signal for a streamed call: the caller's (its client disconnected) or the stage's timeout
 * over the whole stream. The SDKs' own `timeout` only covers the wait for the response headers,
 * so a stream that stalls halfway would otherwise hold its slot and reservation until the client
 * gives up.
 */
export class StreamDeadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private timedOut = false;
  private readonly onCallerAbort = () => this.controller.abort(this.caller?.reason);

  constructor(
    timeoutMs: number,
    private readonly caller?: AbortSignal,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error('stream deadline'));
    }, timeoutMs);
    this.timer.unref();
    if (caller?.aborted) this.controller.abort(caller.reason);
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  callerAborted(): boolean {
    return this.caller?.aborted ?? false;
  }

  expired(): boolean {
    return this.timedOut;
  }

  clear(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}
