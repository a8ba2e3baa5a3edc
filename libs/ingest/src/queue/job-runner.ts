import { runAsTenant } from '@loci/common';
import { Job, JobQueue } from './job-queue';
import {
  DeferJobError,
  describeError,
  isRetryable,
  isTransient,
  LeaseLostError,
  requestedRetryDelayMs,
  RunnerStoppedError,
} from './job-errors';

export interface JobContext {
  /** Aborted when the lease is lost or the runner stops; its reason says which. Stop then. */
  readonly signal: AbortSignal;
  /** Renews the lease now (the runner also does it every lease/3); false when it was lost. */
  heartbeat(): Promise<boolean>;
}

export type JobHandler = (job: Job, context: JobContext) => Promise<void>;

/** Matches Nest's LoggerService and console, so either can be passed. */
export interface JobRunnerLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface JobRunnerOptions {
  logger?: JobRunnerLogger;
  /** Retry delay: baseMs · 2^(attempt-1), capped at maxMs, then jittered to 50–100 % of that. */
  backoff?: { baseMs?: number; maxMs?: number };
  /** For tests of the jitter; Math.random otherwise. */
  random?: () => number;
}

export interface JobRunnerStartOptions {
  /** Written to locked_by; unique per runner (e.g. host:pid:n) so leases can be told apart. */
  workerId: string;
  /** Most handlers running at once (default 1). */
  concurrency?: number;
  /** How often to look for work when idle (default 500 ms); notify() wakes it sooner. */
  pollIntervalMs?: number;
  /** Lease length (default 30 s), renewed every lease/3 while the handler runs. */
  leaseMs?: number;
  /** How long stop() lets in-flight handlers finish before aborting their signal (default 10 s). */
  shutdownGraceMs?: number;
}

const silentLogger: JobRunnerLogger = { log: () => undefined, warn: () => undefined, error: () => undefined };

interface InFlight {
  job: Job;
  controller: AbortController;
  /** Settles (never rejects) once the outcome is recorded. */
  done: Promise<void>;
  lost: boolean;
}

interface IdleWaiter {
  /** Only a claim started after this one may declare the queue idle. */
  afterClaim: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * Consumes the job queue: polls claim() while fewer than `concurrency` handlers run, renews
 * each lease on a timer, and records each outcome. Neither a handler error nor a database
 * error ends the loop: the first is recorded on the job, the second is logged and the claim
 * tried again on the next poll. Jobs of unregistered kinds are left for other runners.
 */
export class JobRunner {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly inFlight = new Map<string, InFlight>();
  private readonly logger: JobRunnerLogger;
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;
  private readonly random: () => number;

  private settings?: Required<JobRunnerStartOptions>;
  private running = false;
  private loop?: Promise<void>;
  private stopping?: Promise<void>;
  private claimsStarted = 0;
  private idleWaiters: IdleWaiter[] = [];
  private wakeRequested = false;
  private wakeSleeper?: () => void;
  private unsubscribe?: () => void;

  constructor(
    private readonly queue: JobQueue,
    options: JobRunnerOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    this.backoffBaseMs = options.backoff?.baseMs ?? 1_000;
    this.backoffMaxMs = options.backoff?.maxMs ?? 5 * 60_000;
    this.random = options.random ?? Math.random;
  }

  register(kind: string, handler: JobHandler): this {
    if (this.handlers.has(kind)) throw new Error(`a handler for job kind "${kind}" is already registered`);
    this.handlers.set(kind, handler);
    return this;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  start(options: JobRunnerStartOptions): void {
    if (this.loop) throw new Error('the job runner is already started');
    const settings = {
      concurrency: 1,
      pollIntervalMs: 500,
      leaseMs: 30_000,
      shutdownGraceMs: 10_000,
      ...options,
    };
    if (!settings.workerId) throw new Error('the job runner needs a workerId');
    if (!(Number.isInteger(settings.concurrency) && settings.concurrency >= 1)) {
      throw new Error(`concurrency must be a positive integer, got ${settings.concurrency}`);
    }
    for (const key of ['pollIntervalMs', 'leaseMs'] as const) {
      if (!(settings[key] > 0)) throw new Error(`${key} must be positive, got ${settings[key]}`);
    }
    this.settings = settings;
    this.running = true;
    this.unsubscribe = this.queue.onNotify(() => this.notify());
    this.loop = this.runLoop(settings);
    this.logger.log(
      `job runner ${settings.workerId} started: kinds [${[...this.handlers.keys()].join(', ')}], concurrency ${settings.concurrency}`,
    );
  }

  /** Wakes the loop now. queue.notify() calls this for every runner started on that queue. */
  notify(): void {
    if (this.wakeSleeper) this.wakeSleeper();
    else this.wakeRequested = true;
  }

  /**
   * Stops claiming, lets in-flight handlers finish for the grace period, then aborts their
   * signal and waits for them. A handler stopped this way that throws puts its job back in
   * the queue without using an attempt. Resolves when nothing runs.
   */
  async stop(options: { graceMs?: number } = {}): Promise<void> {
    if (!this.loop) return;
    this.stopping ??= this.shutDown(options.graceMs ?? this.settings!.shutdownGraceMs);
    await this.stopping;
  }

  /** For tests: resolves once a claim finds nothing ready while no handler runs. */
  drain(): Promise<void> {
    if (!this.running) return Promise.reject(new Error('the job runner is not running'));
    return new Promise((resolve, reject) => {
      this.idleWaiters.push({ afterClaim: this.claimsStarted, resolve, reject });
      this.notify();
    });
  }

  private async shutDown(graceMs: number): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.notify();
    await this.loop;
    const running = [...this.inFlight.values()];
    if (running.length > 0) {
      const settled = Promise.all(running.map((entry) => entry.done));
      if (!(await finishesWithin(settled, graceMs))) {
        this.logger.warn(`job runner stopping: aborting ${this.inFlight.size} handler(s) after ${graceMs} ms`);
        for (const entry of this.inFlight.values()) entry.controller.abort(new RunnerStoppedError());
        await settled;
      }
    }
    for (const waiter of this.idleWaiters.splice(0)) waiter.reject(new Error('the job runner stopped'));
    this.logger.log(`job runner ${this.settings!.workerId} stopped`);
    this.loop = undefined;
    this.stopping = undefined;
  }

  private async runLoop(settings: Required<JobRunnerStartOptions>): Promise<void> {
    while (this.running) {
      if (this.inFlight.size >= settings.concurrency) {
        await this.sleep(settings.pollIntervalMs);
        continue;
      }
      // A notify() from here on means "look again": it makes the next sleep return at once.
      this.wakeRequested = false;
      const claimNumber = ++this.claimsStarted;
      // An empty claim made while jobs ran proves nothing: a tenant at its running cap
      // (max_running_jobs) has queued jobs no claim may take until one of its jobs ends.
      const quietAtClaim = this.inFlight.size === 0;
      let job: Job | null;
      try {
        job = await this.queue.claim(settings.workerId, [...this.handlers.keys()], settings.leaseMs);
      } catch (error) {
        this.logger.warn(`job claim failed, trying again in ${settings.pollIntervalMs} ms: ${describeError(error)}`);
        await this.sleep(settings.pollIntervalMs);
        continue;
      }
      if (job) {
        if (this.running) this.launch(job, settings);
        else await this.giveBack(job);
        continue;
      }
      if (quietAtClaim && this.inFlight.size === 0) this.settleIdleWaiters(claimNumber);
      await this.sleep(settings.pollIntervalMs);
    }
  }

  private launch(job: Job, settings: Required<JobRunnerStartOptions>): void {
    const label = jobLabel(job);
    const controller = new AbortController();
    const entry: InFlight = { job, controller, lost: false, done: Promise.resolve() };

    const heartbeat = async (): Promise<boolean> => {
      if (entry.lost) return false;
      try {
        if (await this.queue.heartbeat(job, settings.leaseMs)) return true;
      } catch (error) {
        // Unknown, not lost: the lease stands until it expires, and the timer tries again.
        this.logger.warn(`heartbeat for ${label} failed: ${describeError(error)}`);
        return true;
      }
      if (!entry.lost) {
        entry.lost = true;
        this.logger.warn(`${label}: lease lost, aborting its handler`);
        controller.abort(new LeaseLostError(label));
      }
      return false;
    };

    let beating = false;
    const timer = setInterval(() => {
      if (beating) return;
      beating = true;
      void heartbeat().finally(() => (beating = false));
    }, settings.leaseMs / 3);
    timer.unref();

    const handler = this.handlers.get(job.kind)!;
    const context: JobContext = { signal: controller.signal, heartbeat };
    entry.done = Promise.resolve()
      // As its tenant's work: the CPU pool serves tenants in turn (libs/common tenant-context).
      .then(() => runAsTenant(job.tenantId, () => handler(job, context)))
      .then(
        () => ({ ok: true as const }),
        (error: unknown) => ({ ok: false as const, error }),
      )
      .then(async (outcome) => {
        clearInterval(timer);
        await this.record(entry, outcome, label);
      })
      .catch((error: unknown) => {
        this.logger.error(`${label}: ${describeError(error)}`);
      })
      .finally(() => {
        this.inFlight.delete(label);
        this.notify();
      });
    this.inFlight.set(label, entry);
  }

  private async record(entry: InFlight, outcome: { ok: true } | { ok: false; error: unknown }, label: string) {
    const { job } = entry;
    if (entry.lost) {
      this.logger.warn(`${label}: finished after losing its lease; its result is discarded`);
      return;
    }
    let held: boolean;
    try {
      if (outcome.ok) {
        held = await this.queue.complete(job);
      } else if (outcome.error instanceof DeferJobError) {
        this.logger.log(`${label} deferred: ${outcome.error.reason}`);
        held = await this.queue.defer(job, { reason: outcome.error.reason });
      } else if (entry.controller.signal.reason instanceof RunnerStoppedError) {
        this.logger.warn(`${label}: stopped by shutdown, back in the queue`);
        held = await this.queue.release(job);
      } else if (isTransient(outcome.error)) {
        const delayMs = this.retryDelayMs(1, outcome.error);
        this.logger.warn(`${label}: transient failure, retrying in ${delayMs} ms (attempt not counted): ${describeError(outcome.error)}`);
        held = await this.queue.fail(job, outcome.error, { retryInMs: delayMs, refundAttempt: true });
      } else {
        const retry = isRetryable(outcome.error) && job.attempts < job.maxAttempts;
        const reason = describeError(outcome.error);
        if (retry) {
          const delayMs = this.retryDelayMs(job.attempts, outcome.error);
          this.logger.warn(`${label} failed (attempt ${job.attempts} of ${job.maxAttempts}), retrying in ${delayMs} ms: ${reason}`);
          held = await this.queue.fail(job, outcome.error, { retryInMs: delayMs });
        } else {
          this.logger.error(`${label} failed for good (attempt ${job.attempts} of ${job.maxAttempts}): ${reason}`);
          held = await this.queue.fail(job, outcome.error);
        }
      }
    } catch (error) {
      this.logger.error(
        `${label}: could not record the outcome (${describeError(error)}); the job runs again when its lease expires`,
      );
      return;
    }
    if (!held) this.logger.warn(`${label}: lease lost before the outcome was recorded; it was discarded`);
  }

  /** A job claimed while stopping goes straight back. */
  private async giveBack(job: Job): Promise<void> {
    try {
      await this.queue.release(job);
    } catch (error) {
      this.logger.warn(`${jobLabel(job)}: could not release (${describeError(error)}); its lease will expire`);
    }
  }

  private retryDelayMs(attempt: number, error: unknown): number {
    const requested = requestedRetryDelayMs(error);
    if (requested !== undefined) return Math.round(requested);
    const ceiling = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** Math.max(0, attempt - 1));
    // Half fixed, half random: retries of jobs that failed together spread out, none comes early.
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  private settleIdleWaiters(claimNumber: number): void {
    const waiting: IdleWaiter[] = [];
    for (const waiter of this.idleWaiters) {
      if (waiter.afterClaim < claimNumber) waiter.resolve();
      else waiting.push(waiter);
    }
    this.idleWaiters = waiting;
  }

  private sleep(ms: number): Promise<void> {
    if (this.wakeRequested) {
      this.wakeRequested = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakeSleeper = undefined;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      timer.unref();
      this.wakeSleeper = wake;
    });
  }
}

function jobLabel(job: Job): string {
  return `job ${job.kind}#${job.id} (tenant ${job.tenantId})`;
}

/** True when `work` settles within `ms`. */
async function finishesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
