import { AttemptPolicy } from './attempt-counter';
import { MemoryAttemptCounter } from './memory.attempt-counter';

/**
 * The throttle's rules on a fake clock: the contract suite runs them on Redis too, but only
 * this one can step through a window and a backoff without waiting for them.
 */
describe('MemoryAttemptCounter', () => {
  let now: number;
  let counter: MemoryAttemptCounter;
  const policy: AttemptPolicy = { maxFailures: 5, windowMs: 60_000, backoffAfter: 2, backoffBaseMs: 1_000 };

  beforeEach(() => {
    now = 1_000_000;
    counter = new MemoryAttemptCounter(() => now);
  });

  it('lets attempts through up to the backoff, then doubles the wait after each one', async () => {
    await expect(counter.take('k', policy)).resolves.toEqual({ ok: true, count: 1 });
    await expect(counter.take('k', policy)).resolves.toEqual({ ok: true, count: 2 });
    // Two counted: the next waits 1 s after the last, then 2 s, then 4 s.
    await expect(counter.take('k', policy)).resolves.toEqual({ ok: false, retryAfterMs: 1_000 });
    now += 999;
    await expect(counter.take('k', policy)).resolves.toEqual({ ok: false, retryAfterMs: 1 });
    now += 1;
    await expect(counter.take('k', policy)).resolves.toEqual({ ok: true, count: 3 });
    await expect(counter.take('k', policy)).resolves.toEqual({ ok: false, retryAfterMs: 2_000 });
    now += 2_000;
    await expect(counter.take('k', policy)).resolves.toEqual({ ok: true, count: 4 });
    await expect(counter.take('k', policy)).resolves.toEqual({ ok: false, retryAfterMs: 4_000 });
  });

  it('refuses until the window ends once the cap is reached, then starts a fresh window', async () => {
    const noBackoff = { ...policy, backoffAfter: policy.maxFailures };
    for (let i = 1; i <= 5; i++) await expect(counter.take('k', noBackoff)).resolves.toEqual({ ok: true, count: i });
    now += 10_000;
    await expect(counter.take('k', noBackoff)).resolves.toEqual({ ok: false, retryAfterMs: 50_000 });
    now += 50_000; // the window started at the first attempt
    await expect(counter.take('k', noBackoff)).resolves.toEqual({ ok: true, count: 1 });
  });

  it('never asks to wait past the end of the window', async () => {
    const slowBackoff = { ...policy, backoffAfter: 1, backoffBaseMs: 3_600_000 };
    await counter.take('k', slowBackoff);
    now += 15_000;
    await expect(counter.take('k', slowBackoff)).resolves.toEqual({ ok: false, retryAfterMs: 45_000 });
  });

  it('giveBack uncounts one attempt and never goes below zero; clear forgets the key', async () => {
    const noBackoff = { ...policy, backoffAfter: policy.maxFailures };
    for (let i = 0; i < 5; i++) await counter.take('k', noBackoff);
    await counter.giveBack('k');
    await expect(counter.take('k', noBackoff)).resolves.toEqual({ ok: true, count: 5 });
    await counter.clear('k');
    await counter.giveBack('k');
    await counter.giveBack('k');
    await expect(counter.take('k', noBackoff)).resolves.toEqual({ ok: true, count: 1 });
  });

  it('counts each key on its own', async () => {
    const one = { ...policy, maxFailures: 1 };
    await counter.take('a', one);
    await expect(counter.take('a', one)).resolves.toMatchObject({ ok: false });
    await expect(counter.take('b', one)).resolves.toEqual({ ok: true, count: 1 });
  });

  it('rejects a policy it cannot apply', async () => {
    await expect(counter.take('k', { ...policy, maxFailures: 0 })).rejects.toThrow(RangeError);
    await expect(counter.take('k', { ...policy, windowMs: 1.5 })).rejects.toThrow(RangeError);
    await expect(counter.take('', policy)).rejects.toThrow(RangeError);
  });
});
