import { runAsTenant } from '@loci/common';
import { CpuPool } from '@loci/ingest';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The CPU pool serves tenants in turn (issue 34.2): with one thread, tenant A's eight slow tasks
 * waiting, tenant B's question (its offline keywords and embedding run on the pool) is answered
 * after at most a few of A's tasks, not after all eight as when the threads were handed out
 * first come, first served. Order of completion, not time, is what is asserted.
 */
describe('the CPU pool takes tenants in turn', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_CPU_THREADS: '1' });
  });
  afterAll(() => t.close());

  it("answers B's question between A's tasks, not after A's whole backlog", async () => {
    const [a, b] = [await createTenantWithPeople(t.app), await createTenantWithPeople(t.app)];
    const pool = t.app.get(CpuPool);
    // A slow task: summarizing a long text, a few hundred ms of CPU each.
    const longText = Array.from({ length: 4_000 }, (_, i) => `Person ${i} works at Company ${i % 97} in City ${i % 13}.`).join(' ');
    const finished: string[] = [];
    const aTasks = Array.from({ length: 8 }, (_, i) =>
      runAsTenant(a.tenant.id, () => pool.summarize(longText)).then(() => void finished.push(`a${i}`)),
    );
    // B asks while A's tasks wait: an API-key question runs its mode with offline keywords on the pool.
    const question = t.http
      .post('/v1/query')
      .set('X-API-Key', b.apiKey.key)
      .send({ query: 'Who works at Company 5?', mode: 'mix', context_only: true })
      .then((response) => {
        expect(response.status).toBe(200);
        finished.push('b');
      });
    await Promise.all([...aTasks, question]);
    expect(finished).toHaveLength(9);
    // First come, first served put B's tasks behind all eight of A's.
    expect(finished.indexOf('b')).toBeLessThanOrEqual(4);
  }, 120_000);
});
