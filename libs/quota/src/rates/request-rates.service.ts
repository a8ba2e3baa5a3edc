import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Settings, SETTINGS } from '@loci/config';
import { errorSummary } from '@loci/db';
import { limitKeys } from '../limit-keys';
import { LIMIT_STORE, LimitStore } from '../limit-store';
import { LimitedClient, SpendControl } from '../spend-control/spend-control.service';
import { rateLimitExceeded } from '../spend-control/spend-errors';
import { BucketState, RateBucket } from './request-rate';

/** A bucket a request took its token from, named for the RateLimit headers. */
export interface RatedBucket extends BucketState {
  /** `tenant`: the tenant's rate; `key`: the API key's own. */
  scope: 'tenant' | 'key';
}

/**
 * Request rates per tenant, and per API key where the key has a rate of its own: each metered
 * request (questions, gb, uploads, MCP tool calls) takes a token from its tenant's bucket and its
 * key's, all or none, in the limit store (docs/decisions/0065-request-rates-and-question-turns.md, "Fair share"). This is what bounds
 * the CPU one tenant's API-key questions may take, which cost no model call and so meet no cap.
 *
 * A request takes its token before admission (concurrency, caps, quota): a request refused
 * there has still used its token, as a request refused for its rate would have. A store that
 * cannot be reached lets the request through (logged): the rate protects capacity, not money,
 * and every request that spends money fails closed at admission anyway.
 *
 * A refusal is answered when its client could retry, not before (at most
 * LOCI_RATE_REFUSAL_HOLD_MS, 1 s, later): a client that ignores Retry-After and asks again at
 * once, 16 connections in a closed loop, drew 400 refusals a second, and the event loop that
 * answers every tenant spent itself on them (the noisy-neighbour bench). Held, such a client gets
 * one refusal a second per connection. A client that honours Retry-After loses nothing: the
 * header says what is left of its wait (0 once the hold covered it), where it used to say at
 * least 1 s from an immediate answer. A held refusal costs a timer, no CPU.
 */
@Injectable()
export class RequestRates {
  private readonly logger = new Logger('RequestRates');

  private readonly holdMs: number;

  constructor(
    @Inject(LIMIT_STORE) private readonly store: LimitStore,
    private readonly spend: SpendControl,
    @Optional() @Inject(SETTINGS) settings?: Pick<Settings, 'limits'>,
  ) {
    this.holdMs = settings?.limits.rateRefusalHoldMs ?? 0;
  }

  /**
   * Takes one token for this request; throws the 429 `rate_limit_exceeded` refusal when a bucket
   * is empty. Answers the buckets taken from (empty: the tenant has no rate limit).
   */
  async take(client: Omit<LimitedClient, 'requestId'>): Promise<RatedBucket[]> {
    const buckets = await this.bucketsOf(client);
    if (buckets.length === 0) return [];
    let decision;
    try {
      decision = await this.store.rates.take(buckets);
    } catch (error) {
      this.logger.warn(`request rate of tenant ${client.tenantId} not checked, let through: ${errorSummary(error)}`);
      return [];
    }
    if (!decision.ok) {
      const bucket = buckets[decision.bucketIndex];
      throw rateLimitExceeded(scopeOf(bucket, client), bucket.perMinute, bucket.burst, await this.retryAfterHeld(decision.retryAfterMs));
    }
    return decision.buckets.map((state, i) => ({ ...state, scope: scopeOf(buckets[i], client) }));
  }

  /**
   * Holds a refusal until its client could retry (Retry-After is whole seconds, so at least 1 s),
   * at most `holdMs`; answers the seconds of the wait still left.
   */
  private async retryAfterHeld(retryAfterMs: number): Promise<number> {
    if (this.holdMs <= 0) return Math.max(1, Math.ceil(retryAfterMs / 1000));
    const held = Math.min(this.holdMs, Math.max(retryAfterMs, 1000));
    await sleep(held);
    return Math.max(0, Math.ceil((retryAfterMs - held) / 1000));
  }

  private async bucketsOf(client: Omit<LimitedClient, 'requestId'>): Promise<RateBucket[]> {
    const tenant = await this.spend.rows.tenantRow(client.tenantId, client.tenant);
    const buckets: RateBucket[] = [];
    if (tenant.requestsPerMinute !== null) {
      // No burst set: a minute's worth may come at once.
      buckets.push({ key: limitKeys.tenantRate(tenant.id), perMinute: tenant.requestsPerMinute, burst: tenant.requestBurst ?? tenant.requestsPerMinute });
    }
    const keyRate = client.clientKind === 'key' ? client.keyRequestsPerMinute : null;
    if (keyRate) {
      // A key's burst is its minute, never more than its tenant's burst.
      const burst = Math.min(keyRate, tenant.requestsPerMinute === null ? keyRate : (tenant.requestBurst ?? tenant.requestsPerMinute));
      buckets.push({ key: limitKeys.keyRate(tenant.id, client.clientId), perMinute: keyRate, burst });
    }
    return buckets;
  }
}

function scopeOf(bucket: RateBucket, client: Omit<LimitedClient, 'requestId'>): 'tenant' | 'key' {
  return bucket.key === limitKeys.tenantRate(client.tenantId) ? 'tenant' : 'key';
}
