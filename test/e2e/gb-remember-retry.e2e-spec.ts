import { sql } from 'drizzle-orm';
import { ClientClosedRequestError } from '@loci/common';
import { Settings, SETTINGS } from '@loci/config';
import { Database, DATABASE, DocumentsRepository, GraphsRepository, InferencesRepository, queryRows } from '@loci/db';
import { contentHash, RememberService } from '@loci/ingest';
import { createTenantWithPeople, embeddingFor, LlmDouble, llmDoubleEnv, ReceivedRequest, startLlmDouble } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

type Tenant = Awaited<ReturnType<typeof createTenantWithPeople>>;

/**
 * A client whose remember timed out sends the same text again while the first request is still
 * ingesting it: the retry waits for the first instead of ingesting the text a second time beside
 * it, and is answered as a duplicate; it takes the text over when the first failed, or when the
 * first's process died (its lease on the document passed unrenewed). Extraction is held open at
 * the loopback double, so "still ingesting" lasts as long as each test needs.
 */
describe('POST /v1/gb/remember retried while the first is still ingesting', () => {
  let double: LlmDouble;
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({ ...llmDoubleEnv(double), LOCI_LLM_MAX_RETRIES: '0', LOCI_RUN_WORKER: 'false' });
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
  });
  afterAll(async () => {
    await t.close();
    await double.close();
  });
  beforeEach(() => {
    double.reset();
    double.openai.embeddings.reply((body) => ({ vectors: (body.input as string[]).map((input) => embeddingFor(input, 1024)) }));
  });

  const remember = (body: object, key = a.apiKey.key) => t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${key}`).send(body);

  const extractions = () => double.anthropic.requests.filter((r: ReceivedRequest) => !String(r.body.system ?? '').includes('summarize'));

  /** Extraction of "<Person> works at <Org>." texts; each reply waits for `hold` when given. */
  function scriptExtraction(hold?: (n: number) => Promise<unknown> | undefined, fault?: (n: number) => { status?: number }) {
    let calls = 0;
    double.anthropic.reply((body) => {
      if (String(body.system ?? '').includes('summarize')) return { text: '{"summary":"A passage."}' };
      const n = calls++;
      const text = JSON.stringify(body.messages ?? '');
      const [, person, org] = /([A-Z]\w+) works at ([A-Z]\w+)/.exec(text) ?? ['', 'Someone', 'Somewhere'];
      return {
        ...(hold?.(n) ? { hold: hold(n) } : {}),
        ...(fault?.(n) ?? {}),
        text: JSON.stringify({
          entities: [
            { name: person, type: 'person', description: '' },
            { name: org, type: 'organization', description: '' },
          ],
          relations: [{ source: person, target: org, relation: 'works_at', description: `${person} works at ${org}.`, keywords: [] }],
        }),
      };
    });
  }

  function gate() {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { opened, open };
  }

  async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Sends the request now (supertest sends on then()), answering its response later. */
  const sent = (request: ReturnType<typeof remember>) => request.then((response) => response);

  async function documentOf(tenantId: string, userId: string, text: string) {
    const graph = await t.app.get(GraphsRepository).findGbGraph(tenantId, userId, 'main');
    const [row] = await queryRows<{ id: number; status: string; lease_holder: string | null; lease_expires_at: Date | null }>(
      t.app.get<Database>(DATABASE).db,
      sql`SELECT id, status, lease_holder, lease_expires_at FROM documents
           WHERE tenant_id = ${tenantId} AND graph_id = ${graph!.id} AND content_hash = ${contentHash(text)}`,
    );
    return row;
  }

  const extractCallsInLedger = async (tenantId: string, since: Date) =>
    (await t.app.get(InferencesRepository).listByTenantSince(tenantId, since)).filter((row) => row.stage === 'extract').length;

  it('waits for the first request and answers the retry as a duplicate: the text is extracted once', async () => {
    const first$ = gate();
    scriptExtraction(() => first$.opened);
    const body = { user_id: 'retry-dup', text: 'Hana works at Zenith.' };
    const since = new Date(Date.now() - 1_000);

    const first = sent(remember(body));
    await until(() => extractions().length === 1, 'the first extraction');
    const second = sent(remember(body));
    // The retry has looked at the document and found it held (several times, at 100, 200, 400 ms).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(extractions()).toHaveLength(1);
    first$.open();

    const [one, two] = await Promise.all([first, second]);
    expect(one.status).toBe(200);
    expect(two.status).toBe(200);
    expect(one.body).toMatchObject({ duplicate: false });
    expect(one.body.entities.map((e: { name: string }) => e.name).sort()).toEqual(['Hana', 'Zenith']);
    expect(two.body).toMatchObject({ artifact_id: one.body.artifact_id, duplicate: true, entities: [], edges: [] });
    expect(extractions()).toHaveLength(1);
    expect(await extractCallsInLedger(a.tenant.id, since)).toBe(1);
    expect(await documentOf(a.tenant.id, 'retry-dup', body.text)).toMatchObject({ status: 'processed', lease_holder: null, lease_expires_at: null });
  });

  it('takes the text over when the first request fails, and ingests it itself', async () => {
    const first$ = gate();
    // The first extraction is held, then fails; the retry's succeeds.
    scriptExtraction(
      (n) => (n === 0 ? first$.opened : undefined),
      (n) => (n === 0 ? { status: 500 } : {}),
    );
    const body = { user_id: 'retry-after-failure', text: 'Ivo works at Orbital.' };

    const first = sent(remember(body));
    await until(() => extractions().length === 1, 'the first extraction');
    const second = sent(remember(body));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(extractions()).toHaveLength(1);
    first$.open();

    const [one, two] = await Promise.all([first, second]);
    expect(one.status).toBe(502);
    expect(two.status).toBe(200);
    expect(two.body).toMatchObject({ duplicate: false });
    expect(two.body.entities.map((e: { name: string; change: string }) => [e.name, e.change]).sort()).toEqual([
      ['Ivo', 'created'],
      ['Orbital', 'created'],
    ]);
    expect(extractions()).toHaveLength(2);
    expect(await documentOf(a.tenant.id, 'retry-after-failure', body.text)).toMatchObject({ status: 'processed', lease_holder: null });
  });

  it('takes over a text whose request died mid-ingestion (processing, its lease passed) and finishes it', async () => {
    scriptExtraction();
    const text = 'Juno works at Parallax.';
    const graph = await t.app.get(GraphsRepository).gbGraph(a.tenant.id, 'retry-stale', 'main');
    const documents = t.app.get(DocumentsRepository);
    const { document } = await documents.createOrGet({
      tenantId: a.tenant.id,
      graphId: graph.id,
      kind: 'gb_text',
      name: 'remember (a process that died)',
      mimeType: 'text/plain',
      contentHash: contentHash(text),
      text,
      documentDate: null,
      sessionId: null,
    });
    await documents.setStatus(a.tenant.id, document.id, 'processing');
    const db = t.app.get<Database>(DATABASE).db;
    await db.execute(sql`UPDATE documents SET lease_holder = 'dead-process', lease_expires_at = now() - interval '1 second'
                          WHERE tenant_id = ${a.tenant.id} AND id = ${document.id}`);

    const response = await remember({ user_id: 'retry-stale', text }).expect(200);
    expect(response.body).toMatchObject({ artifact_id: document.id, duplicate: false });
    expect(response.body.entities.map((e: { name: string }) => e.name).sort()).toEqual(['Juno', 'Parallax']);
    expect(extractions()).toHaveLength(1);
    expect(await documentOf(a.tenant.id, 'retry-stale', text)).toMatchObject({ status: 'processed', lease_holder: null });
  });

  it('waits no longer than LOCI_REMEMBER_WAIT_MS for a live lease: 409 with Retry-After, nothing ingested', async () => {
    scriptExtraction();
    const text = 'Kai works at Quasar.';
    const graph = await t.app.get(GraphsRepository).gbGraph(a.tenant.id, 'retry-live', 'main');
    const { document } = await t.app.get(DocumentsRepository).createOrGet({
      tenantId: a.tenant.id,
      graphId: graph.id,
      kind: 'gb_text',
      name: 'remember (still running elsewhere)',
      mimeType: 'text/plain',
      contentHash: contentHash(text),
      text,
      documentDate: null,
      sessionId: null,
    });
    await t.app.get<Database>(DATABASE).db.execute(sql`UPDATE documents
         SET status = 'processing', lease_holder = 'another-instance', lease_expires_at = now() + interval '10 minutes'
       WHERE tenant_id = ${a.tenant.id} AND id = ${document.id}`);
    const settings = t.app.get<Settings>(SETTINGS);
    const before = settings.ingest.remember.waitMs;
    settings.ingest.remember.waitMs = 600;
    try {
      const started = Date.now();
      const response = await remember({ user_id: 'retry-live', text }).expect(409);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(response.body).toEqual({ error: expect.stringContaining('still being remembered') });
      expect(response.headers['retry-after']).toBe('5');
    } finally {
      settings.ingest.remember.waitMs = before;
    }
    expect(extractions()).toHaveLength(0);
    expect(await documentOf(a.tenant.id, 'retry-live', text)).toMatchObject({ status: 'processing', lease_holder: 'another-instance' });
  });

  it('stops waiting when the client goes away', async () => {
    const first$ = gate();
    scriptExtraction(() => first$.opened);
    const body = { user_id: 'retry-gone', text: 'Lea works at Nimbus.' };
    const service = t.app.get(RememberService);
    const calls: Array<Promise<unknown>> = [];
    const spy = jest.spyOn(service, 'remember').mockImplementation(function (this: RememberService, ...args) {
      const call = RememberService.prototype.remember.apply(this, args);
      calls.push(call.catch((error: unknown) => error));
      return call;
    });
    try {
      const first = sent(remember(body));
      await until(() => extractions().length === 1, 'the first extraction');
      // The client gives up after 300 ms (its own timeout): the connection closes.
      await expect(remember(body).timeout(300)).rejects.toThrow(/timeout/i);
      expect(calls).toHaveLength(2);
      const outcome = await Promise.race([calls[1], new Promise((resolve) => setTimeout(() => resolve('still waiting'), 3_000).unref())]);
      expect(outcome).toBeInstanceOf(ClientClosedRequestError);
      first$.open();
      expect((await first).status).toBe(200);
    } finally {
      spy.mockRestore();
      first$.open();
    }
    expect(extractions()).toHaveLength(1);
  });

  it('hands a free text to one of several claims made at once, and a passed lease to one taker', async () => {
    const graph = await t.app.get(GraphsRepository).gbGraph(a.tenant.id, 'claims-race', 'main');
    const documents = t.app.get(DocumentsRepository);
    const { document } = await documents.createOrGet({
      tenantId: a.tenant.id,
      graphId: graph.id,
      kind: 'gb_text',
      name: 'remember',
      mimeType: 'text/plain',
      contentHash: contentHash('Nora works at Vertex.'),
      text: 'Nora works at Vertex.',
      documentDate: null,
      sessionId: null,
    });
    const race = () =>
      Promise.all(Array.from({ length: 8 }, (_, n) => documents.claimIngestion(a.tenant.id, document.id, `claimer-${n}`, 30_000)));
    const first = await race();
    expect(first.filter((c) => c.state === 'claimed')).toEqual([{ state: 'claimed', tookOver: false }]);
    expect(first.filter((c) => c.state === 'held')).toHaveLength(7);
    // Another tenant cannot claim it by its id.
    expect(await documents.claimIngestion(b.tenant.id, document.id, 'intruder', 30_000)).toEqual({ state: 'gone' });

    await t.app.get<Database>(DATABASE).db.execute(sql`UPDATE documents SET lease_expires_at = now() - interval '1 second'
                                                        WHERE tenant_id = ${a.tenant.id} AND id = ${document.id}`);
    const second = await race();
    expect(second.filter((c) => c.state === 'claimed')).toEqual([{ state: 'claimed', tookOver: true }]);
    const holder = (await documentOf(a.tenant.id, 'claims-race', 'Nora works at Vertex.')).lease_holder!;
    // The holder that lost it can neither renew it nor record an outcome.
    const loser = holder === 'claimer-0' ? 'claimer-1' : 'claimer-0';
    expect(await documents.renewIngestionLease(a.tenant.id, document.id, loser, 30_000)).toBe(false);
    expect(await documents.endIngestionLease(a.tenant.id, document.id, loser, { statusReason: 'late' })).toBe(false);
    expect(await documents.renewIngestionLease(a.tenant.id, document.id, holder, 30_000)).toBe(true);
    expect(await documents.endIngestionLease(a.tenant.id, document.id, holder, { statusReason: 'failed here' })).toBe(true);
    expect(await documentOf(a.tenant.id, 'claims-race', 'Nora works at Vertex.')).toMatchObject({ status: 'failed', lease_holder: null });
    // Failed and free: claimed again at once, not as a takeover.
    expect(await documents.claimIngestion(a.tenant.id, document.id, 'next', 30_000)).toEqual({ state: 'claimed', tookOver: false });
  });

  it("keeps one user's, another user's and another tenant's same text apart: each is ingested at once", async () => {
    const held = gate();
    scriptExtraction(() => held.opened);
    const text = 'Mira works at Helix.';
    const responses = [
      sent(remember({ user_id: 'same-text-1', text })),
      sent(remember({ user_id: 'same-text-2', text })),
      sent(remember({ user_id: 'same-text-1', text }, b.apiKey.key)),
    ];
    // All three reach the model while each is held: none waits for another's lease.
    await until(() => extractions().length === 3, 'three extractions at once');
    held.open();
    const answered = await Promise.all(responses);
    expect(answered.map((r) => [r.status, r.body.duplicate])).toEqual([
      [200, false],
      [200, false],
      [200, false],
    ]);
    expect(new Set(answered.map((r) => r.body.artifact_id)).size).toBe(3);
  });
});
