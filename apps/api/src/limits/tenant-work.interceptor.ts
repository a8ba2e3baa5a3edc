import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';
import type { Principal } from '@loci/auth';
import { runAsTenant } from '@loci/common';

/**
 * Runs each route handler as its caller's tenant's work (libs/common tenant-context), so shared
 * resources that take tenants in turn (the CPU pool's threads) know whose work they serve. The
 * guard has named the caller by now; the handler runs when the observable is subscribed, so it
 * is subscribed inside the context, and every await in the handler keeps it.
 */
@Injectable()
export class TenantWorkInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const principal: Principal | undefined = context.switchToHttp().getRequest().principal;
    return new Observable((subscriber) => runAsTenant(principal?.tenantId ?? undefined, () => next.handle().subscribe(subscriber)));
  }
}
