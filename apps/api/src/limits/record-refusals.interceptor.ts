import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor, Optional } from '@nestjs/common';
import { catchError, from, Observable, switchMap, throwError } from 'rxjs';
import type { Principal } from '@loci/auth';
import { LimitExceededError } from '@loci/common';
import { errorSummary, LimitRefusalsRepository } from '@loci/db';
import { LociMetrics } from '@loci/metrics';

/**
 * Counts every request refused by a spend limit (402, 429, 503 `limits_unavailable`) per tenant,
 * day and kind, for the usage reports. Refusals are thrown from wherever the limit is met (at
 * admission, or at a model call's reservation mid-request), so they are counted here, where
 * every one of them passes, rather than at each throw; the Prometheus series by kind too (the
 * platform's view, no tenant label). Counting never changes the answer: a failed count is
 * logged and the refusal goes out as it was.
 */
@Injectable()
export class RecordRefusalsInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Refusals');

  constructor(
    private readonly refusals: LimitRefusalsRepository,
    @Optional() private readonly metrics?: LociMetrics,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((error: unknown) => {
        const principal: Principal | undefined = context.switchToHttp().getRequest().principal;
        if (error instanceof LimitExceededError) this.metrics?.limitRefusal(error.code);
        if (!(error instanceof LimitExceededError) || !principal?.tenantId) return throwError(() => error);
        return from(this.count(principal.tenantId, error.code)).pipe(switchMap(() => throwError(() => error)));
      }),
    );
  }

  private async count(tenantId: string, kind: string): Promise<void> {
    try {
      await this.refusals.record(tenantId, kind);
    } catch (error) {
      this.logger.warn(`refusal ${kind} of tenant ${tenantId} not counted: ${errorSummary(error)}`);
    }
  }
}
