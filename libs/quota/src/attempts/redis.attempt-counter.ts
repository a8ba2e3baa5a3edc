import type { LuaScript } from '../limit-scripts';
import { AttemptAdmission, AttemptCounter, AttemptPolicy, assertAttemptKey, assertAttemptPolicy } from './attempt-counter';
import { CLEAR_ATTEMPTS, GIVE_BACK_ATTEMPT, TAKE_ATTEMPT } from './attempt-scripts';

/** Runs a script on the limit store's connection (EVALSHA, loading it on NOSCRIPT). */
export type ScriptRunner = (script: LuaScript, keys: string[], args: string[]) => Promise<unknown>;

/**
 * The attempt counter in Redis, on the limit store's connection: each operation is one script on
 * one key, so it is atomic across app instances and fits any Redis Cluster slot.
 */
export class RedisAttemptCounter implements AttemptCounter {
  constructor(private readonly run: ScriptRunner) {}

  async take(key: string, policy: AttemptPolicy): Promise<AttemptAdmission> {
    assertAttemptKey(key);
    assertAttemptPolicy(policy);
    const args = [policy.maxFailures, policy.windowMs, policy.backoffAfter, policy.backoffBaseMs].map(String);
    const [ok, value] = (await this.run(TAKE_ATTEMPT, [key], args)) as [number, number | string];
    return ok === 1 ? { ok: true, count: Number(value) } : { ok: false, retryAfterMs: Number(value) };
  }

  async giveBack(key: string): Promise<void> {
    assertAttemptKey(key);
    await this.run(GIVE_BACK_ATTEMPT, [key], []);
  }

  async clear(key: string): Promise<void> {
    assertAttemptKey(key);
    await this.run(CLEAR_ATTEMPTS, [key], []);
  }
}
