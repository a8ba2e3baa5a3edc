import { Injectable, Logger, Optional } from '@nestjs/common';
import { LimitExceededError } from '@loci/common';
import { errorSummary, LimitRefusalsRepository } from '@loci/db';
import { LociMetrics } from '@loci/metrics';

/**
 * Counts a request refused by a spend limit (402, 429, 503 `limits_unavailable`) per tenant,
 * day and kind, for the usage reports, and in the Prometheus series by kind (the platform's
 * view, no tenant label). Refusals are thrown from wherever the limit is met (at admission, or at
 * a model call's reservation mid-request), so they are counted where they are delivered, not at
 * each throw: the HTTP error path (RecordRefusalsInterceptor), a stream's `error` event
 * (QueryEventStream) and an MCP tool's result (mcp-tools) each hand every failure here, and this
 * one function decides whether it is a refusal. Counting never changes the answer: a failed
 * count is logged and the refusal goes out as it was.
 */
@Injectable()
export class RefusalCounter {
  private readonly logger = new Logger('Refusals');

  constructor(
    private readonly refusals: LimitRefusalsRepository,
    @Optional() private readonly metrics?: LociMetrics,
  ) {}

  /** Counts `error` when it is a limit's refusal; anything else passes uncounted. */
  async countIfRefusal(error: unknown, tenantId: string | null | undefined): Promise<void> {
    if (!(error instanceof LimitExceededError)) return;
    this.metrics?.limitRefusal(error.code);
    if (!tenantId) return;
    try {
      await this.refusals.record(tenantId, error.code);
    } catch (failure) {
      this.logger.warn(`refusal ${error.code} of tenant ${tenantId} not counted: ${errorSummary(failure)}`);
    }
  }
}
