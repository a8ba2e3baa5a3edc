import { Injectable } from '@nestjs/common';
import { TenantRow, TenantsRepository } from '@loci/db';

/**
 * How long a tenant's status read from the store is trusted by one process. A suspension made
 * through this process takes effect here at once (`remember`); other instances see it within
 * this bound, as a resume does. It is what keeps a JWT request from reading its tenant's row
 * every time (an API key's request reads it with the key anyway, and never uses the cache).
 */
export const TENANT_STATUS_TTL_MS = 5_000;

/** Entries kept before expired ones are swept: bounds the cache on a platform of many tenants. */
const MAX_ENTRIES = 10_000;

export type TenantState = 'active' | 'suspended' | 'gone';

interface Entry {
  state: TenantState;
  at: number;
}

/**
 * Whether a tenant may be served: active, suspended by an operator, or gone (deleted). A short
 * per-process cache in front of the tenants table; see TENANT_STATUS_TTL_MS for the bound.
 */
@Injectable()
export class TenantStatus {
  private readonly entries = new Map<string, Entry>();
  private readonly reads = new Map<string, Promise<TenantState>>();

  constructor(private readonly tenants: TenantsRepository) {}

  static stateOf(row: Pick<TenantRow, 'suspendedAt'> | undefined): TenantState {
    if (!row) return 'gone';
    return row.suspendedAt ? 'suspended' : 'active';
  }

  async stateOf(tenantId: string): Promise<TenantState> {
    const cached = this.entries.get(tenantId);
    if (cached && Date.now() - cached.at < TENANT_STATUS_TTL_MS) return cached.state;
    let read = this.reads.get(tenantId);
    if (!read) {
      // Concurrent requests of one tenant share one read.
      read = this.tenants
        .findById(tenantId)
        .then((row) => {
          const state = TenantStatus.stateOf(row);
          this.remember(tenantId, state);
          return state;
        })
        .finally(() => this.reads.delete(tenantId));
      this.reads.set(tenantId, read);
    }
    return read;
  }

  /** Records a state this process just wrote (suspend, resume, delete), so it applies at once here. */
  remember(tenantId: string, state: TenantState): void {
    const now = Date.now();
    if (this.entries.size >= MAX_ENTRIES) {
      for (const [id, entry] of this.entries) if (now - entry.at >= TENANT_STATUS_TTL_MS) this.entries.delete(id);
      // Still full of fresh entries: forgetting them only costs reads.
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    }
    this.entries.set(tenantId, { state, at: now });
  }
}
