import { startTestApp, TestApp } from '../support/test-app';

describe('health', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('/healthz answers without credentials', async () => {
    await t.http.get('/healthz').expect(200);
  });

  it('/readyz reports the store, migrations and the limit store as up', async () => {
    const response = await t.http.get('/readyz').expect(200);
    expect(response.body.status).toBe('ok');
    expect(response.body.details).toEqual({
      store: { status: 'up', driver: process.env.DATABASE_URL ? 'postgres' : 'pglite' },
      migrations: { status: 'up' },
      limits: { status: 'up', driver: process.env.REDIS_URL ? 'redis' : 'memory' },
    });
  });
});

describe('readiness when Redis is unreachable', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Port 1 on loopback: nothing listens, so every connection is refused at once.
    t = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:1' });
  });
  afterAll(() => t.close());

  it('/readyz is 503 and names the failing check, while /healthz stays 200', async () => {
    const response = await t.http.get('/readyz').expect(503);
    expect(response.body.status).toBe('error');
    expect(response.body.error.limits.status).toBe('down');
    expect(response.body.details.store.status).toBe('up');
    await t.http.get('/healthz').expect(200);
  });
});
