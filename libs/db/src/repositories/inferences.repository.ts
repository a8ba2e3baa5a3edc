import { Inject, Injectable } from '@nestjs/common';
import { and, asc, eq, gte } from 'drizzle-orm';
import { Database, DATABASE } from '../database';
import { InferenceRow, inferences } from '../schema';

/** `createdAt` defaults to the database's now(); a spend-limited call is dated by its reservation. */
export type NewInference = Omit<typeof inferences.$inferInsert, 'id' | 'status'>;

export interface InferenceOutcome {
  status: 'ok' | 'error';
  tokensIn: number;
  tokensOut: number;
  tokensThinking: number;
  costMicros: number;
  latencyMs: number;
  /** The model that answered, when it differs from the one asked for (providers may alias). */
  model?: string;
  error?: string;
}

/** The inference ledger's rows; (tenant_id, request_id, call_index) identifies one call. */
@Injectable()
export class InferencesRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /** Records a call about to be made. Idempotent: a second write of the same call is ignored. */
  async begin(call: NewInference): Promise<void> {
    await this.database.db
      .insert(inferences)
      .values({ ...call, status: 'pending' })
      .onConflictDoNothing({ target: [inferences.tenantId, inferences.requestId, inferences.callIndex] });
  }

  /**
   * Records a call that has already ended, in one row. For calls that cannot spend (the offline
   * local provider): nothing can be lost by a process dying before the row is written, so the
   * pending row written first for a provider call is not needed. Idempotent like `begin`.
   */
  async record(call: NewInference, outcome: InferenceOutcome): Promise<void> {
    const { model, error, ...counts } = outcome;
    await this.database.db
      .insert(inferences)
      .values({ ...call, ...counts, error: error ?? null, ...(model ? { model } : {}) })
      .onConflictDoNothing({ target: [inferences.tenantId, inferences.requestId, inferences.callIndex] });
  }

  /** Records how the call ended. Idempotent: only a pending row is completed. */
  async complete(key: { tenantId: string; requestId: string; callIndex: number }, outcome: InferenceOutcome): Promise<void> {
    await this.database.db
      .update(inferences)
      .set({
        status: outcome.status,
        tokensIn: outcome.tokensIn,
        tokensOut: outcome.tokensOut,
        tokensThinking: outcome.tokensThinking,
        costMicros: outcome.costMicros,
        latencyMs: outcome.latencyMs,
        error: outcome.error ?? null,
        ...(outcome.model ? { model: outcome.model } : {}),
      })
      .where(
        and(
          eq(inferences.tenantId, key.tenantId),
          eq(inferences.requestId, key.requestId),
          eq(inferences.callIndex, key.callIndex),
          eq(inferences.status, 'pending'),
        ),
      );
  }

  async listByRequest(tenantId: string, requestId: string): Promise<InferenceRow[]> {
    return this.database.db
      .select()
      .from(inferences)
      .where(and(eq(inferences.tenantId, tenantId), eq(inferences.requestId, requestId)))
      .orderBy(asc(inferences.callIndex));
  }

  async listByTenantSince(tenantId: string, since: Date): Promise<InferenceRow[]> {
    return this.database.db
      .select()
      .from(inferences)
      .where(and(eq(inferences.tenantId, tenantId), gte(inferences.createdAt, since)))
      .orderBy(asc(inferences.id));
  }
}
