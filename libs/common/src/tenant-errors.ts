import { DomainError } from './errors';

const SUSPENDED_MESSAGE = 'This tenant is suspended by the platform operators; ask them to resume it.';

/**
 * Every request of a suspended tenant is refused with this (403 `tenant_suspended`) until an
 * operator resumes it. `body` is the contract-style detail object each surface wraps in its own
 * shape, as it does a limit refusal's, so v1 and gb clients read the code, not only a sentence.
 */
export class TenantSuspendedError extends DomainError {
  readonly code = 'tenant_suspended';
  readonly status = 403;
  readonly body = { error: 'tenant_suspended', message: SUSPENDED_MESSAGE };

  constructor() {
    super(SUSPENDED_MESSAGE);
  }
}
