import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The gb contract's own example is `curl -d '{json}'`, which labels the body
 * application/x-www-form-urlencoded; /v1/gb/* reads a JSON body whatever its content type.
 */
describe('/v1/gb/* body content types', () => {
  let t: TestApp;
  let a: Awaited<ReturnType<typeof createTenantWithPeople>>;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    a = await createTenantWithPeople(t.app);
  });
  afterAll(() => t.close());

  const post = (path: string) => t.http.post(path).set('Authorization', `Bearer ${a.apiKey.key}`);
  // What `curl -d` sends.
  const asForm = (path: string, body: string) =>
    post(path).set('Content-Type', 'application/x-www-form-urlencoded').send(body);

  it('remembers and answers a JSON body sent as a form, as curl -d does', async () => {
    const remembered = await asForm('/v1/gb/remember', JSON.stringify({ user_id: 'curl', text: 'Alice works at Acme.' })).expect(200);
    expect(remembered.body).toMatchObject({ artifact_id: expect.any(Number), dataset: 'main', duplicate: false });

    const answered = await asForm('/v1/gb/query', JSON.stringify({ user_id: 'curl', query: 'Where does Alice work?' })).expect(200);
    expect(answered.body.answer).toEqual(expect.any(String));
    expect(answered.body.evidence.entities.map((e: { name: string }) => e.name)).toContain('Alice');
  });

  it('reads a JSON body that has no content type at all', async () => {
    // superagent sends a Buffer without a Content-Type header.
    const response = await post('/v1/gb/remember')
      .send(Buffer.from(JSON.stringify({ user_id: 'untyped', text: 'Bob lives in Paris.' })))
      .expect(200);
    expect(response.body).toMatchObject({ artifact_id: expect.any(Number), duplicate: false });
  });

  it.each([
    ['a form body', 'application/x-www-form-urlencoded', 'user_id=u1&text=hello'],
    ['broken JSON', 'application/x-www-form-urlencoded', '{"user_id": '],
    ['plain text', 'text/plain', 'hello'],
    ['broken JSON declared as JSON', 'application/json', '{"user_id": '],
  ])('answers %s with 400 {"error"} naming JSON', async (_name, type, body) => {
    for (const path of ['/v1/gb/remember', '/v1/gb/query']) {
      const response = await post(path).set('Content-Type', type).send(body).expect(400);
      expect(response.body).toEqual({ error: 'Request body is not valid JSON.' });
    }
  });

  it('keeps the body limits of each route', async () => {
    const tooLong = JSON.stringify({ user_id: 'u', query: 'x'.repeat(64 * 1024) });
    const response = await asForm('/v1/gb/query', tooLong).expect(413);
    expect(response.body).toEqual({ error: expect.stringContaining('64 KiB') });
  });

  it('leaves other surfaces as they were: a form body is not read as JSON there', async () => {
    const response = await t.http
      .post('/v1/query')
      .set('Authorization', `Bearer ${a.apiKey.key}`)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(JSON.stringify({ query: 'Where does Alice work?', mode: 'naive' }));
    expect(response.status).toBe(422);
  });
});
