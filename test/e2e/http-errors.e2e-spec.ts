import { createTenant, createUser, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/** Bad input always gets a clear 4xx in the generic error shape, never a 5xx. */
describe('bad input on the generic surface', () => {
  let t: TestApp;
  let operator: TestUser;
  beforeAll(async () => {
    t = await startTestApp();
    operator = await createUser(t.app, null, 'operator');
  });
  afterAll(() => t.close());

  const postTenant = (body: string | object) =>
    t.http
      .post('/v1/admin/tenants')
      .set('Authorization', `Bearer ${operator.token}`)
      .set('Content-Type', 'application/json')
      .send(typeof body === 'string' ? body : JSON.stringify(body));

  it('answers malformed JSON with 400', async () => {
    const response = await postTenant('{"name": ').expect(400);
    expect(response.body).toEqual({
      error: { code: 'malformed_json', message: 'Request body is not valid JSON.' },
      request_id: response.headers['x-request-id'],
    });
  });

  it('answers a body over the limit with 413', async () => {
    const response = await postTenant({ name: 'x'.repeat(1024 * 1024 + 10) }).expect(413);
    expect(response.body.error).toEqual({ code: 'payload_too_large', message: 'Request body is larger than 1 MiB.' });
  });

  it('rejects unknown fields, naming them', async () => {
    const response = await postTenant({ name: 'Acme', colour: 'blue' }).expect(400);
    expect(response.body.error.code).toBe('validation_failed');
    expect(response.body.error.details).toEqual([{ field: 'colour', message: 'unknown field' }]);
  });

  it('rejects wrong types and bad enum values, naming the field', async () => {
    const wrongType = await postTenant({ name: 42 }).expect(400);
    expect(wrongType.body.error.details.map((d: { field: string }) => d.field)).toEqual(['name']);
    const badEnum = await postTenant({ name: 'Acme', tier: 'platinum' }).expect(400);
    expect(badEnum.body.error.details.map((d: { field: string }) => d.field)).toEqual(['tier']);
  });

  it('rejects a body that is not an object', async () => {
    await postTenant('[1,2]').expect(400);
    await postTenant('"text"').expect(400);
  });

  it('rejects bad query parameters', async () => {
    const response = await t.http
      .get('/v1/admin/tenants?limit=abc')
      .set('Authorization', `Bearer ${operator.token}`)
      .expect(400);
    expect(response.body.error.details[0].field).toBe('limit');
  });

  it('answers an unknown route with 404 in the same shape', async () => {
    const response = await t.http.get('/v1/nothing-here').expect(404);
    expect(response.body.error.code).toBe('not_found');
  });

  it('answers a non-JSON content type on a JSON route with a 400, not a 5xx', async () => {
    const tenant = await createTenant(t.app);
    await t.http
      .post(`/v1/admin/tenants/${tenant.id}/api-keys`)
      .set('Authorization', `Bearer ${operator.token}`)
      .set('Content-Type', 'text/plain')
      .send('name=foo')
      .expect(400);
  });

  it('gives every response its own request id, keeping a sane caller-supplied one beside it', async () => {
    const generated = await t.http.get('/healthz').expect(200);
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(generated.headers['x-client-request-id']).toBeUndefined();
    // The caller's id never becomes ours: it keys the spend ledger, and a reused one would merge requests.
    const kept = await t.http.get('/healthz').set('X-Request-Id', 'trace-abc.123').expect(200);
    expect(kept.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(kept.headers['x-client-request-id']).toBe('trace-abc.123');
    const replaced = await t.http.get('/healthz').set('X-Request-Id', 'bad id with spaces and {braces}').expect(200);
    expect(replaced.headers['x-client-request-id']).toBeUndefined();
  });
});
