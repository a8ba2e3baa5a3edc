import { startTestApp, TestApp } from '../support/test-app';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers /healthz', async () => {
    await t.http.get('/healthz').expect(200);
  });
});
