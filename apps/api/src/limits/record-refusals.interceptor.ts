import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { catchError, from, Observable, switchMap, throwError } from 'rxjs';
import type { Principal } from '@loci/auth';
import { RefusalCounter } from './refusal-counter';

/**
 * Counts the refusals that leave as HTTP error responses (every route's thrown errors pass
 * here); the ones delivered otherwise (a stream's `error` event, an MCP tool result) are counted
 * where they are delivered, by the same RefusalCounter.
 */
@Injectable()
export class RecordRefusalsInterceptor implements NestInterceptor {
  constructor(private readonly refusals: RefusalCounter) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((error: unknown) => {
        const principal: Principal | undefined = context.switchToHttp().getRequest().principal;
        return from(this.refusals.countIfRefusal(error, principal?.tenantId)).pipe(switchMap(() => throwError(() => error)));
      }),
    );
  }
}
