import { DomainError } from '@loci/common';
import type { ProviderName, Stage, TokenUsage } from './model.types';

/**
 * What went wrong with a model call, for callers to map to their surface (the gb contract maps
 * `not_configured` to 503 and the others to 502):
 * - `unavailable`: the provider could not be reached or answered 5xx (after retries);
 * - `rate_limited`: 429 (after retries);
 * - `timeout`: no answer within the stage's timeout;
 * - `rejected`: a 4xx other than 429 (bad key, bad request): not retried;
 * - `bad_output`: the reply was empty, or not valid JSON for the schema even after one repair;
 * - `truncated`: generation stopped at max_tokens: a cut answer is never used;
 * - `not_configured`: the stage's provider has no key or endpoint;
 * - `aborted`: the caller went away mid-call (a streamed answer's client disconnected).
 */
export type ModelCallFailure =
  | 'unavailable'
  | 'rate_limited'
  | 'timeout'
  | 'rejected'
  | 'bad_output'
  | 'truncated'
  | 'not_configured'
  | 'aborted';

export class ModelCallError extends DomainError {
  /** Tokens the failed call was still billed for (a truncated or unusable reply). */
  readonly usage?: TokenUsage;

  /** How the HTTP layer answers: 503 when no model is configured, 502 when the model failed. */
  get code(): string {
    return this.failure === 'not_configured' ? 'model_not_configured' : 'model_call_failed';
  }

  constructor(
    readonly failure: ModelCallFailure,
    readonly provider: ProviderName,
    readonly model: string,
    readonly stage: string,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown; usage?: TokenUsage },
  ) {
    super(message);
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
    this.usage = options?.usage;
    this.name = 'ModelCallError';
  }
}

export function isModelCallError(error: unknown): error is ModelCallError {
  return error instanceof ModelCallError;
}

// Stage is re-exported for callers that build errors outside a provider.
export type { Stage };
