import { listRoutes, startTestApp, TestApp } from '@loci/testing';

describe('OpenAPI document and route auth', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('serves the document at /openapi.json listing every route the app serves', async () => {
    const { body: document } = await t.http.get('/openapi.json').expect(200);
    const routes = listRoutes(t.app);
    expect(routes.length).toBeGreaterThan(5);
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('documents request bodies and security schemes', async () => {
    const { body: document } = await t.http.get('/openapi.json').expect(200);
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['api_key', 'jwt']);
    const login = document.paths['/v1/auth/login'].post;
    expect(login.requestBody.content['application/json'].schema.required).toEqual(['email', 'password']);
  });

  it('serves Swagger UI at /docs', async () => {
    const response = await t.http.get('/docs').expect(200);
    expect(response.text).toContain('swagger-ui');
  });

  // A change to who may call what shows up in review as a change to this snapshot.
  it('matches the route-auth snapshot', () => {
    expect(listRoutes(t.app).map((r) => `${r.method.padEnd(6)} ${r.path.padEnd(42)} ${r.auth}`)).toMatchSnapshot();
  });
});
