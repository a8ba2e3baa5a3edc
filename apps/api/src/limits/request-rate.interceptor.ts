import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { from, Observable, switchMap } from 'rxjs';
import type { Principal } from '@loci/auth';
import { RequestRates } from '@loci/quota';
import { limitedClient } from './limited-client';
import { setRequestRateHeaders } from './rate-limit-headers';

const METERED = 'loci:metered';

/**
 * A route whose every call takes a token of its tenant's request rate (and its API key's): the
 * question routes, gb, uploads. MCP tool calls take theirs in mcp-tools, one per call.
 */
export const Metered = () => SetMetadata(METERED, true);

/**
 * Takes a metered route's token before its handler runs (after the guards have named the
 * caller, before any body is read into work), and says what is left in RateLimit headers.
 * Registered after RecordRefusalsInterceptor, so a refusal thrown here is counted as every other.
 */
@Injectable()
export class RequestRateInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly rates: RequestRates,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (!this.reflector.get<boolean>(METERED, context.getHandler())) return next.handle();
    const http = context.switchToHttp();
    const principal: Principal | undefined = http.getRequest().principal;
    if (!principal?.tenantId) return next.handle();
    return from(this.rates.take(limitedClient(principal, ''))).pipe(
      switchMap((buckets) => {
        setRequestRateHeaders(http.getResponse<Response>(), buckets);
        return next.handle();
      }),
    );
  }
}
