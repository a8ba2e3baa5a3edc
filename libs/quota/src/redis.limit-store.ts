import type { SharedWriteNotes } from '@loci/db';
import { connectRedis, RedisReadiness, RedisTarget } from '@loci/kv';
import type { Cluster, Redis } from 'ioredis';
import { AttemptCounter } from './attempts/attempt-counter';
import { RedisAttemptCounter } from './attempts/redis.attempt-counter';
import { RateLimiter } from './rates/request-rate';
import { RedisRateLimiter } from './rates/redis.rate-limiter';
import { unlinkKeysMatching } from './forget-keys';
import { limitKeys } from './limit-keys';
import { RedisWriteNotes } from './write-notes/redis.write-notes';
import {
  ACQUIRE_SLOT,
  ADMIT,
  BUMP_LIMITS_VERSION,
  COMMITTED,
  CONSUME_QUOTA,
  LuaScript,
  RELEASE_SLOT,
  REFUND_QUOTA,
  RENEW_RESERVATION,
  RENEW_SLOT,
  RESERVE,
  SEED_COMMITTED,
  SETTLE,
} from './limit-scripts';
import {
  AdmissionRequest,
  AdmissionResult,
  assertAdmission,
  assertId,
  assertLimit,
  assertMicros,
  assertPositiveMs,
  assertScopes,
  Guard,
  LimitStore,
  LimitStoreOptions,
  ReserveResult,
  SettleResult,
  SpendScope,
} from './limit-store';

/** Same hash tag as the scope's (or the quota's) counter (the suffix follows it). */
const seededMarker = (scopeKey: string) => `${scopeKey}:seeded`;
const scopeKeys = (key: string) => [key, `${key}:res:exp`, `${key}:res:amt`, `${key}:res:sum`];


/**
 * On a Redis Cluster every limit key is put behind this hash tag, so all of them share one slot.
 * A request's admission, reserve and settle are each one script over the tenant's counters AND
 * the platform's (`{platform}`) AND the reservation record: on a Cluster the keys of one script
 * must share a slot, and these three cannot share one under their own tags (see limit-keys.ts
 * for the designs that would spread them). One slot keeps every script exact and atomic as on
 * one Redis; the limits then live on one master (a few Lua calls per request, far below what
 * one Redis core serves), and the Cluster gives the deployment its failover.
 */
export const CLUSTER_KEY_PREFIX = '{loci-limits}:';

/**
 * LimitStore on Redis: every operation is one Lua script (see limit-scripts.ts), timed by Redis
 * TIME, so several app instances share exact limits and no app clock is trusted.
 */
export class RedisLimitStore implements LimitStore {
  readonly kind = 'redis' as const;
  readonly attempts: AttemptCounter = new RedisAttemptCounter((script, keys, args) => this.run(script, keys, args));
  readonly rates: RateLimiter = new RedisRateLimiter((script, keys, args) => this.run(script, keys, args));
  readonly writeNotes: SharedWriteNotes = new RedisWriteNotes((script, keys, args) => this.run(script, keys, args));
  private readonly namespace: string;

  constructor(
    private readonly redis: Redis | Cluster,
    options: LimitStoreOptions = {},
  ) {
    this.namespace = options.namespace ?? 'loci:';
  }

  /** One Redis (a URL) or a Redis Cluster, where ioredis puts CLUSTER_KEY_PREFIX before every key. */
  static connect(target: string | RedisTarget, options: LimitStoreOptions = {}): RedisLimitStore {
    // Fail fast instead of queueing while Redis is down: spending requests must fail closed (503).
    const redis = connectRedis(typeof target === 'string' ? { url: target } : target, { clusterKeyPrefix: CLUSTER_KEY_PREFIX });
    return new RedisLimitStore(redis, options);
  }

  async now(): Promise<number> {
    await this.ready();
    const [seconds, micros] = await this.redis.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  async reserve(reservationId: string, scopes: SpendScope[], amountMicros: number, leaseMs: number, guard?: Guard): Promise<ReserveResult> {
    assertId('reservationId', reservationId);
    assertScopes(scopes);
    assertMicros('amountMicros', amountMicros);
    assertPositiveMs('leaseMs', leaseMs);
    const keys = [
      this.recordKey(reservationId),
      this.settledKey(reservationId),
      ...scopes.flatMap((s) => scopeKeys(s.key)),
      ...(guard ? scopes.map((s) => seededMarker(s.key)) : []),
      ...(guard?.limitsVersion !== undefined ? [this.limitsVersionKey()] : []),
    ];
    const window = guard?.window ?? { fromMs: 0, toMs: Number.MAX_SAFE_INTEGER };
    const args = [
      reservationId,
      String(amountMicros),
      String(leaseMs),
      String(scopes.length),
      JSON.stringify(scopes.map((s) => s.key)),
      ...scopes.flatMap((s) => [s.capMicros === null ? '' : String(s.capMicros), String(s.ttlMs)]),
      guard ? '1' : '',
      String(window.fromMs),
      String(window.toMs),
      guard?.limitsVersion ?? '',
    ];
    const reply = (await this.run(RESERVE, keys, args)) as number[];
    if (reply[0] === 1) return { ok: true, committedMicros: reply.slice(1).map(Number) };
    if (reply[0] === 4) return { ok: false, retry: 'limits', version: String(reply[1]) };
    if (reply[0] === 2) return { ok: false, retry: 'unseeded' };
    if (reply[0] === 3) return { ok: false, retry: 'window', nowMs: Number(reply[1]) };
    return { ok: false, scopeIndex: Number(reply[1]), committedMicros: Number(reply[2]), capMicros: Number(reply[3]) };
  }

  async settle(reservationId: string, scopes: SpendScope[], actualMicros: number, guard?: Guard): Promise<SettleResult> {
    assertId('reservationId', reservationId);
    assertScopes(scopes);
    assertMicros('actualMicros', actualMicros);
    const keys = [
      this.recordKey(reservationId),
      this.settledKey(reservationId),
      ...scopes.flatMap((s) => scopeKeys(s.key)),
      ...(guard ? scopes.map((s) => seededMarker(s.key)) : []),
    ];
    const markerTtl = Math.max(...scopes.map((s) => s.ttlMs));
    const args = [reservationId, String(actualMicros), String(scopes.length), String(markerTtl), ...scopes.map((s) => String(s.ttlMs)), guard ? '1' : ''];
    const reply = Number(await this.run(SETTLE, keys, args));
    return reply === 1 ? 'settled' : reply === 2 ? 'unseeded' : 'already_settled';
  }

  async renewReservation(reservationId: string, leaseMs: number): Promise<boolean> {
    assertId('reservationId', reservationId);
    assertPositiveMs('leaseMs', leaseMs);
    const record = this.recordKey(reservationId);
    // The script must declare every key it touches, so the scope keys are read first; the script
    // then checks the record still names exactly those keys (else it was replaced: read again).
    for (let attempt = 0; attempt < 3; attempt++) {
      await this.ready();
      const keysJson = await this.redis.hget(record, 'keys');
      if (keysJson === null) return false;
      const keys = (JSON.parse(keysJson) as string[]).flatMap((k) => scopeKeys(k).slice(1));
      const reply = Number(await this.run(RENEW_RESERVATION, [record, ...keys], [reservationId, String(leaseMs), keysJson]));
      if (reply !== -1) return reply === 1;
    }
    return false;
  }

  async committed(scopeKey: string): Promise<number> {
    return Number(await this.run(COMMITTED, scopeKeys(scopeKey), []));
  }

  async seedCommitted(scope: SpendScope, settledMicros: number): Promise<void> {
    assertScopes([scope]);
    assertMicros('settledMicros', settledMicros);
    // NX makes concurrent rebuilds from several instances harmless (the first wins, nothing is
    // added twice); the marker is set in the same script, so a counter is never marked without
    // being there.
    await this.run(SEED_COMMITTED, [scope.key, seededMarker(scope.key)], [String(settledMicros), String(scope.ttlMs)]);
  }

  async seeded(scopeKeys: string[]): Promise<boolean[]> {
    if (scopeKeys.length === 0) return [];
    await this.ready();
    const markers = await this.redis.mget(...scopeKeys.map(seededMarker));
    return markers.map((marker) => marker !== null);
  }

  async acquireSlot(key: string, leaseId: string, limit: number, leaseMs: number): Promise<{ ok: boolean; active: number }> {
    assertId('leaseId', leaseId);
    assertLimit(limit);
    assertPositiveMs('leaseMs', leaseMs);
    const [ok, active] = (await this.run(ACQUIRE_SLOT, [key], [leaseId, String(limit), String(leaseMs)])) as number[];
    return { ok: ok === 1, active: Number(active) };
  }

  async renewSlot(key: string, leaseId: string, leaseMs: number): Promise<boolean> {
    assertId('leaseId', leaseId);
    assertPositiveMs('leaseMs', leaseMs);
    return Number(await this.run(RENEW_SLOT, [key], [leaseId, String(leaseMs)])) === 1;
  }

  async releaseSlot(key: string, leaseId: string): Promise<boolean> {
    assertId('leaseId', leaseId);
    return Number(await this.run(RELEASE_SLOT, [key], [leaseId])) === 1;
  }

  async consumeQuota(key: string, limit: number, ttlMs: number): Promise<{ ok: boolean; count: number }> {
    assertLimit(limit);
    assertPositiveMs('ttlMs', ttlMs);
    const [ok, count] = (await this.run(CONSUME_QUOTA, [key], [String(limit), String(ttlMs)])) as number[];
    return { ok: ok === 1, count: Number(count) };
  }

  async quotaCount(key: string): Promise<number> {
    await this.ready();
    return Number((await this.redis.get(key)) ?? 0);
  }

  async refundQuota(key: string): Promise<void> {
    await this.run(REFUND_QUOTA, [key], []);
  }

  async admit(request: AdmissionRequest): Promise<AdmissionResult> {
    assertAdmission(request);
    // Absent slot or quota: a placeholder key in the request's hash slot, never touched.
    const placeholder = `${request.scopes[0]?.key ?? `${this.namespace}admission`}:none`;
    const keys = [
      request.slot?.key ?? placeholder,
      request.quota?.key ?? placeholder,
      request.quota ? seededMarker(request.quota.key) : placeholder,
      ...request.scopes.flatMap((scope) => [...scopeKeys(scope.key), seededMarker(scope.key)]),
      this.limitsVersionKey(),
    ];
    const args = [
      request.slot?.leaseId ?? '',
      request.slot ? String(request.slot.limit) : '',
      request.slot ? String(request.slot.leaseMs) : '',
      request.quota ? String(request.quota.limit) : '',
      request.quota ? String(request.quota.ttlMs) : '',
      String(request.window.fromMs),
      String(request.window.toMs),
      String(request.scopes.length),
      ...request.scopes.map((scope) => (scope.capMicros === null ? '' : String(scope.capMicros))),
      request.limitsVersion ?? '',
      request.quota?.seed === undefined ? '' : String(request.quota.seed),
    ];
    const [reason, first, second] = (await this.run(ADMIT, keys, args)) as [string, unknown, unknown];
    switch (reason) {
      case 'ok':
        return { ok: true, slotsActive: request.slot ? Number(first) : null, quotaCount: request.quota ? Number(second) : null };
      case 'limits':
        return { ok: false, reason, version: String(first) };
      case 'window':
        return { ok: false, reason, nowMs: Number(first) };
      case 'unseeded':
        return { ok: false, reason, scopeIndexes: (first as unknown[]).map(Number), ...(Number(second) === 1 ? { quota: true as const } : {}) };
      case 'slot':
        return { ok: false, reason, active: Number(first) };
      case 'caps': {
        const flat = (first as unknown[]).map(Number);
        const full = [];
        for (let i = 0; i < flat.length; i += 2) full.push({ scopeIndex: flat[i], committedMicros: flat[i + 1] });
        return { ok: false, reason, full };
      }
      case 'quota':
        return { ok: false, reason, count: Number(first) };
      default:
        throw new Error(`unexpected admission reply ${String(reason)}`);
    }
  }

  async forgetTenant(tenantId: string): Promise<number> {
    await this.ready();
    // ioredis prefixes keys, not SCAN patterns: on a Cluster the pattern names the prefix itself.
    return unlinkKeysMatching(this.redis, `${this.redis.options.keyPrefix ?? ''}${limitKeys.tenantPattern(tenantId)}`);
  }

  async bumpLimitsVersion(): Promise<string> {
    return String(await this.run(BUMP_LIMITS_VERSION, [this.limitsVersionKey()], []));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  /** One version for every tenant's and the platform's limits: they change rarely, by operators. */
  private limitsVersionKey(): string {
    return `${this.namespace}limits:version`;
  }

  private recordKey(id: string): string {
    return `${this.namespace}reservation:${id}`;
  }

  private settledKey(id: string): string {
    return `${this.namespace}settled:${id}`;
  }

  /** EVALSHA, loading the script on the first NOSCRIPT (new server, or after SCRIPT FLUSH / restart). */
  private async run(script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    await this.ready();
    try {
      return await this.redis.evalsha(script.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
      return this.redis.eval(script.lua, keys.length, ...keys, ...args);
    }
  }

  /** Waits for the initial connection (commands fail fast while Redis is down). */
  private ready(): Promise<void> {
    return (this.readiness ??= new RedisReadiness(this.redis)).wait();
  }

  private readiness?: RedisReadiness;
}
