import { errorSummary } from '@loci/db';

/**
 * Errors a job handler may throw to steer the runner, and the helpers that read any error.
 * The runner reads plain properties (`retryable`, `retryAfterMs`), so errors from other
 * libraries (a provider's 429 with Retry-After, say) can steer it without subclassing these.
 */

/** Retrying cannot help (bad payload, missing document): the job fails at once. */
export class NonRetryableJobError extends Error {
  readonly retryable = false;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NonRetryableJobError';
  }
}

/** The signal's reason when another worker took the job over: stop, the result will be refused. */
export class LeaseLostError extends Error {
  constructor(jobLabel: string) {
    super(`lease lost on ${jobLabel}: another worker may now hold it`);
    this.name = 'LeaseLostError';
  }
}

/** The signal's reason when the runner is shutting down and the grace period has passed. */
export class RunnerStoppedError extends Error {
  constructor() {
    super('the job runner is stopping');
    this.name = 'RunnerStoppedError';
  }
}

/**
 * The failure says nothing about the job (its transaction was a deadlock's victim, say): it is
 * retried after the usual backoff without using up an attempt, so conflicts with other jobs
 * never fail a job for good.
 */
export class TransientJobError extends Error {
  readonly transient = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransientJobError';
  }
}

/** An error that says `transient: true` is retried without counting as an attempt. */
export function isTransient(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { transient?: unknown }).transient === true;
}

/** Everything is retryable unless it says `retryable: false`. */
export function isRetryable(error: unknown): boolean {
  return !(typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === false);
}

/** An error may name its own delay (e.g. from a Retry-After header); it overrides the backoff. */
export function requestedRetryDelayMs(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const delay = (error as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof delay === 'number' && Number.isFinite(delay) && delay >= 0 ? delay : undefined;
}

const MAX_ERROR_TEXT = 4_000;

/**
 * The text stored in `jobs.last_error` and logged: name and message, no stack (it may carry
 * paths), and none of the tenant's text (errorSummary drops drizzle's parameters and quoted
 * values). A wrapper's first cause is kept: a failed statement says why through it.
 */
export function describeError(error: unknown): string {
  const text = typeof error === 'string' ? error : errorSummary(error, 2);
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}…` : text;
}

/**
 * Thrown by a handler whose work may not run now (a tenant's cost cap is reached): the job is
 * deferred (not failed, its attempt given back) until something resumes it.
 */
export class DeferJobError extends Error {
  constructor(readonly reason: string) {
    super(`deferred: ${reason}`);
    this.name = 'DeferJobError';
  }
}
