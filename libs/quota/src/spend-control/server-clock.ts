import { LimitStore } from '../limit-store';

/** How often the offset to the store's clock is measured again. */
export const CLOCK_RESAMPLE_MS = 30_000;

/**
 * The limit store's time (Redis TIME), estimated without a round trip per request: the offset
 * between the store's clock and this process's is measured every CLOCK_RESAMPLE_MS and applied
 * to the local clock. The estimate only names the window (which UTC day's keys); the store
 * checks the window against its own clock in the same atomic step and answers with its time
 * when they disagree (near midnight, or this host's clock jumped), and `correct` then takes the
 * store's word. So windows stay defined by the store's clock, never by the app's.
 */
export class ServerClock {
  private offsetMs?: number;
  private sampledAt = 0;
  private sampling?: Promise<void>;

  constructor(
    private readonly store: Pick<LimitStore, 'now'>,
    private readonly local: () => number = Date.now,
  ) {}

  async now(): Promise<number> {
    if (this.offsetMs === undefined || this.local() - this.sampledAt >= CLOCK_RESAMPLE_MS) await this.sample();
    return this.local() + this.offsetMs!;
  }

  /** The store said its time is `serverNowMs`. */
  correct(serverNowMs: number): void {
    this.offsetMs = serverNowMs - this.local();
    this.sampledAt = this.local();
  }

  private sample(): Promise<void> {
    // Concurrent requests share one measurement.
    this.sampling ??= (async () => {
      try {
        const before = this.local();
        const server = await this.store.now();
        const after = this.local();
        this.offsetMs = server - Math.round((before + after) / 2);
        this.sampledAt = after;
      } finally {
        this.sampling = undefined;
      }
    })();
    return this.sampling;
  }
}
