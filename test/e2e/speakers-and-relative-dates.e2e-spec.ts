import { DocumentsService, IngestWorker } from '@loci/ingest';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

type Tenant = Awaited<ReturnType<typeof createTenantWithPeople>>;
interface EdgeJson {
  source?: string;
  target?: string;
  relation: string;
  description?: string;
  valid_at?: string;
}

/**
 * Issue 36.2 and 36.3 on the stores the environment selects (offline extraction): a turn
 * "Caroline: Yesterday I went…" is Caroline's own statement (she is an entity and the facts are
 * hers), and "yesterday" is the day before the text's own time (gb `valid_at`, a document's
 * `document_date`, or a session's date line), written out in the fact's description. Through
 * both surfaces: gb remember and query, and an upload and /v1/query.
 */
describe('speakers and relative dates', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  const TURN = 'Caroline: Yesterday I went to the LGBTQ support group in Boston.';

  beforeAll(async () => {
    t = await startTestApp({});
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
  });
  afterAll(() => t.close());

  it('gb: remembers the turn as Caroline going to Boston on the day before valid_at, and answers from it', async () => {
    const remembered = await t.http
      .post('/v1/gb/remember')
      .set('X-API-Key', a.apiKey.key)
      .send({ user_id: 'caroline', text: TURN, valid_at: '2023-05-08T00:00:00Z' })
      .expect(200);
    const entities = remembered.body.entities as Array<{ id: number; name: string; type: string }>;
    expect(entities).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Caroline', type: 'person' })]));
    expect(entities.map((e) => e.name)).not.toContain('I');
    const idOf = (name: string) => entities.find((e) => e.name === name)!.id;
    const boston = (remembered.body.edges as Array<EdgeJson & { source_id: number; target_id: number }>).find(
      (e) => e.source_id === idOf('Caroline') && e.target_id === idOf('Boston'),
    );
    expect(boston).toBeDefined();
    expect(boston!.valid_at).toBe('2023-05-07T00:00:00.000Z');
    expect(boston!.description).toContain('Yesterday (2023-05-07)');
    const answered = await t.http.post('/v1/gb/query').set('X-API-Key', a.apiKey.key).send({ user_id: 'caroline', query: 'Where did Caroline go?' }).expect(200);
    expect(JSON.stringify(answered.body.evidence)).toContain('Boston');
    // Another tenant's memory holds nothing of it.
    await t.http.post('/v1/gb/query').set('X-API-Key', b.apiKey.key).send({ user_id: 'caroline', query: 'Where did Caroline go?' }).expect(404);
  });

  it('/v1/query: an uploaded conversation is read the same, against its document_date or its own date line', async () => {
    await t.http
      .post('/v1/documents')
      .set('X-API-Key', a.apiKey.key)
      .send({ name: 'session-1.txt', text: TURN, document_date: '2023-05-08T00:00:00Z' })
      .expect(202);
    await t.app.get(DocumentsService).submit(a.tenant.id, {
      name: 'session-2.txt',
      mimeType: 'text/plain',
      text: 'Session date: 20 June 2023\nMelanie: I moved to Denver two days ago.\nCaroline: My sister lives in Oslo.',
    });
    await t.app.get(IngestWorker).drain();
    const ask = async (query: string, ll: string[]) =>
      (
        await t.http
          .post('/v1/query')
          .set('X-API-Key', a.apiKey.key)
          .send({ query, context_only: true, hl_keywords: ['went', 'moved'], ll_keywords: ll })
          .expect(200)
      ).body.context.relations as EdgeJson[];
    const went = (await ask('Where did Caroline go?', ['Caroline', 'Boston'])).find((r) => r.source === 'Caroline' && r.target === 'Boston');
    expect(went?.description).toContain('Yesterday (2023-05-07)');
    const moved = (await ask('Where did Melanie move?', ['Melanie', 'Denver'])).find((r) => r.source === 'Melanie' && r.target === 'Denver');
    expect(moved?.description).toContain('two days ago (2023-06-18)');
    const otherTenant = await t.http
      .post('/v1/query')
      .set('X-API-Key', b.apiKey.key)
      .send({ query: 'Where did Melanie move?', context_only: true, hl_keywords: ['moved'], ll_keywords: ['Melanie'] })
      .expect(200);
    expect(JSON.stringify(otherTenant.body)).not.toContain('Denver');
  });
});
