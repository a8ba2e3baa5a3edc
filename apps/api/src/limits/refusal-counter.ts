import { Injectable, Logger, OnApplicationShutdown, Optional } from '@nestjs/common';
import { LimitExceededError } from '@loci/common';
import { errorSummary, LimitRefusalsRepository } from '@loci/db';
import { LociMetrics } from '@loci/metrics';

/** How long refusals are added up in memory before they are written, in ms. */
export const REFUSAL_FLUSH_MS = 1_000;

/**
 * Counts a request refused by a spend limit (402, 429, 503 `limits_unavailable`) per tenant,
 * day and kind, for the usage reports, and in the Prometheus series by kind (the platform's
 * view, no tenant label). Refusals are thrown from wherever the limit is met (at admission, or at
 * a model call's reservation mid-request), so they are counted where they are delivered, not at
 * each throw: the HTTP error path (RecordRefusalsInterceptor), a stream's `error` event
 * (QueryEventStream) and an MCP tool's result (mcp-tools) each hand every failure here, and this
 * one function decides whether it is a refusal. Counting never changes the answer: a failed
 * count is logged and the refusal goes out as it was.
 *
 * A refusal must cost far less than the work it refuses: a client ignoring Retry-After at
 * concurrency 16 drew 100-200 refusals a second, each one a committed upsert of the same row,
 * taking CPU from every tenant's questions (the noisy-neighbour bench). So counts are added up
 * here per tenant and kind and written once a second, one statement for all of them (record
 * 0047). What a process dying loses is at most that second's counts, never a refusal itself;
 * `flush()` before a usage read on this instance shows its own refusals at once.
 */
@Injectable()
export class RefusalCounter implements OnApplicationShutdown {
  private readonly logger = new Logger('Refusals');
  /** Counts not yet written, by tenant and kind (bounded by tenants times the limits' kinds). */
  private pending = new Map<string, { tenantId: string; kind: string; count: number }>();
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly refusals: LimitRefusalsRepository,
    @Optional() private readonly metrics?: LociMetrics,
  ) {}

  /** Counts `error` when it is a limit's refusal; anything else passes uncounted. */
  async countIfRefusal(error: unknown, tenantId: string | null | undefined): Promise<void> {
    if (!(error instanceof LimitExceededError)) return;
    this.metrics?.limitRefusal(error.code);
    if (!tenantId) return;
    this.add([{ tenantId, kind: error.code, count: 1 }]);
    this.timer ??= setTimeout(() => void this.flush(), REFUSAL_FLUSH_MS).unref();
  }

  /** Writes every count added up so far (after any write in progress). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const rows = [...this.pending.values()];
    this.pending = new Map();
    this.writing = this.writing.then(async () => {
      try {
        await this.refusals.add(rows);
      } catch (failure) {
        // Kept for the next write: the counts of a database that is briefly away are not lost.
        this.logger.warn(`${rows.length} refusal counts not written yet: ${errorSummary(failure)}`);
        this.add(rows);
        this.timer ??= setTimeout(() => void this.flush(), REFUSAL_FLUSH_MS).unref();
      }
    });
    return this.writing;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flush();
    clearTimeout(this.timer);
  }

  private add(rows: ReadonlyArray<{ tenantId: string; kind: string; count: number }>): void {
    for (const row of rows) {
      const key = `${row.tenantId}\u0000${row.kind}`;
      const counted = this.pending.get(key);
      if (counted) counted.count += row.count;
      else this.pending.set(key, { ...row });
    }
  }
}
