import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { VALID_QUERY_SCHEMA } from '@loci/http';
import { listRoutes, RouteInfo } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';
import { z } from 'zod';

type Schema = Record<string, any>;
type Operation = {
  summary?: string;
  description?: string;
  security?: unknown[];
  parameters?: { name: string; in: string; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
};

/** POST/PUT/PATCH routes that read no body (their path says everything). */
const BODYLESS = new Set([
  'POST /v1/admin/tenants/{tenantId}/suspend',
  'POST /v1/admin/tenants/{tenantId}/resume',
  'POST /v1/documents/{documentId}/retry',
  'POST /v1/bulk-load',
  'POST /v1/bulk-load/finish',
]);

/**
 * The error body each path answers with, written out here rather than taken from the code
 * that documents it (DESIGN.md, Errors): /v1/query FastAPI's, /v1/gb/* the gb contract's, the
 * health probes' 503 terminus's report, /mcp also JSON-RPC errors from its transport, the rest one shape.
 */
function expectedErrorSchemas(path: string, status: number): string[] {
  if (path === '/v1/query') return [status === 422 ? 'HTTPValidationError' : 'DetailError'];
  if (path.startsWith('/v1/gb/')) return ['GbError'];
  if ((path === '/healthz' || path === '/readyz') && status === 503) return ['HealthReport'];
  if (path === '/mcp') return ['ErrorResponse', 'JsonRpcError'];
  return ['ErrorResponse'];
}

const refName = (schema: Schema | undefined) => schema?.$ref?.replace('#/components/schemas/', '') as string | undefined;
const refNames = (schema: Schema): (string | undefined)[] => (schema.oneOf ? (schema.oneOf as Schema[]).map(refName) : [refName(schema)]);

describe('OpenAPI document and route auth', () => {
  let t: TestApp;
  let document: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> } };
  let operations: { key: string; path: string; method: string; op: Operation; route: RouteInfo | undefined }[];

  beforeAll(async () => {
    t = await startTestApp();
    document = (await t.http.get('/openapi.json').expect(200)).body;
    const routes = new Map(listRoutes(t.app).map((r) => [`${r.method} ${r.path}`, r]));
    operations = Object.entries(document.paths).flatMap(([path, byMethod]) =>
      Object.entries(byMethod).map(([method, op]) => {
        const key = `${method.toUpperCase()} ${path}`;
        return { key, path, method: method.toUpperCase(), op, route: routes.get(key) };
      }),
    );
  });
  afterAll(() => t.close());

  const resolve = (schema: Schema): Schema => {
    const name = refName(schema);
    return name ? document.components.schemas[name] : schema;
  };
  /** Each failure names its route, so one run lists every gap. */
  const gaps = (check: (o: (typeof operations)[number]) => string[]) => operations.flatMap((o) => check(o).map((gap) => `${o.key}: ${gap}`));

  it('serves the document at /openapi.json listing every route the app serves', async () => {
    const routes = listRoutes(t.app);
    expect(routes.length).toBeGreaterThan(5);
    expect(operations.map((o) => o.key).sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('documents request bodies and security schemes', async () => {
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['api_key', 'jwt', 'metrics_token']);
    const login = resolve(document.paths['/v1/auth/login'].post.requestBody!.content['application/json'].schema);
    expect(login.required).toEqual(['email', 'password']);
  });

  it('gives every operation a summary and a description', () => {
    expect(gaps(({ op }) => [...(op.summary?.trim() ? [] : ['no summary']), ...(op.description?.trim() ? [] : ['no description'])])).toEqual([]);
  });

  it('names every request and response schema as a component, and every $ref resolves', () => {
    expect(
      gaps(({ key, method, op }) => {
        const found: string[] = [];
        if (['POST', 'PUT', 'PATCH'].includes(method) && !BODYLESS.has(key) && !op.requestBody) found.push('no request body');
        for (const [mediaType, { schema }] of Object.entries(op.requestBody?.content ?? {})) {
          if (!refName(schema)) found.push(`request ${mediaType} schema is not a named component`);
        }
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) >= 300 || status === '204') continue;
          if (!response.content) found.push(`${status} has no body schema`);
          for (const [mediaType, { schema }] of Object.entries(response.content ?? {})) {
            if (!refName(schema)) found.push(`${status} ${mediaType} schema is not a named component`);
          }
        }
        return found;
      }),
    ).toEqual([]);
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    expect(refs.filter((name) => !document.components.schemas[name])).toEqual([]);
  });

  it("documents the error statuses of the shared machinery on every route, each with its surface's body", () => {
    expect(
      gaps(({ path, op, route }) => {
        const found: string[] = [];
        const validation = path === '/v1/query' ? '422' : '400';
        const guarded = route!.auth !== 'public';
        // /metrics is open to the guard and checks its own bearer token (the next test).
        if (path !== '/metrics' && guarded !== (op.security ?? []).length > 0) found.push(`security ${JSON.stringify(op.security)} but auth ${route!.auth}`);
        const required = [
          ...(guarded ? ['401', '403'] : []),
          // The body parser runs on every route, before routing.
          '400',
          '413',
          '415',
          ...(op.requestBody || op.parameters?.some((p) => p.in === 'query') ? [validation] : []),
          ...(op.parameters?.some((p) => p.in === 'path') ? ['404'] : []),
          ...(path.startsWith('/v1/') ? ['503'] : []),
        ];
        for (const status of required) if (!op.responses[status]) found.push(`no ${status}`);
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          const schema = response.content?.['application/json']?.schema;
          if (!schema) {
            found.push(`${status} has no JSON body`);
            continue;
          }
          const allowed = expectedErrorSchemas(path, Number(status));
          const named = refNames(schema);
          if (!named.every((name) => name && allowed.includes(name))) found.push(`${status} body ${named.join('|')}, expected ${allowed.join(' or ')}`);
        }
        return found;
      }),
    ).toEqual([]);
  });

  it('describes the three error shapes as the surfaces write them', async () => {
    const schemas = document.components.schemas;
    expect(schemas.ErrorResponse.required).toEqual(['error', 'request_id']);
    expect(schemas.ErrorResponse.properties.error.required).toEqual(['code', 'message']);
    expect(schemas.GbError).toMatchObject({ required: ['error'], properties: { error: { type: 'string' } } });
    expect(resolve(schemas.HTTPValidationError.properties.detail.items).required).toEqual(['loc', 'msg', 'type']);
    // And the bodies the routes answer with have those fields.
    const generic = await t.http.get('/v1/me').expect(401);
    expect(Object.keys(generic.body).sort()).toEqual(['error', 'request_id']);
    const gb = await t.http.post('/v1/gb/query').send({}).expect(401);
    expect(typeof gb.body.error).toBe('string');
    const v1 = await t.http.post('/v1/query').send({}).expect(401);
    expect(v1.body).toHaveProperty('detail');
  });

  it('documents every query parameter a route validates', () => {
    expect(
      gaps(({ op, route }) => {
        const args = Reflect.getMetadata(ROUTE_ARGS_METADATA, route!.controller, route!.methodName) ?? {};
        const readsQuery = Object.keys(args).some((k) => k.startsWith(`${RouteParamtypes.QUERY}:`));
        const documented = (op.parameters ?? []).filter((p) => p.in === 'query');
        const schema: z.ZodType | undefined = Reflect.getMetadata(VALID_QUERY_SCHEMA, route!.handler);
        if (!readsQuery) return documented.length > 0 ? ['documents query parameters it does not read'] : [];
        if (!schema) return ['reads the query string without ValidQuery(schema)'];
        const fields = Object.keys((z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Schema).properties ?? {});
        const found: string[] = [];
        if (JSON.stringify(documented.map((p) => p.name).sort()) !== JSON.stringify(fields.sort())) found.push(`query ${documented.map((p) => p.name)} but reads ${fields}`);
        for (const p of documented) if (!p.schema?.type && !p.schema?.enum && !p.schema?.anyOf) found.push(`query ${p.name} has no schema`);
        return found;
      }),
    ).toEqual([]);
    const queryOf = (path: string, method = 'get') => (document.paths[path][method].parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name).sort();
    expect(queryOf('/v1/documents')).toEqual(['limit', 'offset', 'status']);
    expect(queryOf('/v1/admin/tenants')).toEqual(['limit', 'offset']);
    expect(queryOf('/v1/usage')).toEqual(['from', 'tenant_id', 'to']);
    expect(queryOf('/v1/admin/usage')).toEqual(['from', 'tenant_id', 'to']);
    expect(queryOf('/v1/gb/datasets')).toEqual(['user_id']);
  });

  it('describes the upload of POST /v1/documents as a multipart form with a binary file part', () => {
    const { content } = document.paths['/v1/documents'].post.requestBody!;
    const form = resolve(content['multipart/form-data'].schema);
    expect(form.required).toContain('file');
    expect(form.properties.file).toMatchObject({ type: 'string', format: 'binary' });
    expect(Object.keys(form.properties).sort()).toEqual(['document_date', 'file', 'name']);
    const json = resolve(content['application/json'].schema);
    expect(json.required).toEqual(['name', 'text']);
    expect(json.properties).not.toHaveProperty('file');
  });

  it('declares public routes with `security: []`, /metrics with its bearer token and every other route with its schemes', () => {
    expect(
      gaps(({ path, op, route }) => {
        if (path === '/metrics') return JSON.stringify(op.security) === '[{"metrics_token":[]}]' ? [] : [`security ${JSON.stringify(op.security)}`];
        if (route!.auth === 'public') return JSON.stringify(op.security) === '[]' ? [] : [`public, but security ${JSON.stringify(op.security)}`];
        const schemes = (op.security ?? []).flatMap((requirement) => Object.keys(requirement as object));
        return schemes.length > 0 && schemes.every((s) => s === 'jwt' || s === 'api_key') ? [] : [`guarded, but security ${JSON.stringify(op.security)}`];
      }),
    ).toEqual([]);
    expect(document.paths['/v1/auth/login'].post.security).toEqual([]);
  });

  it('describes the streamed answer of /v1/query as text/event-stream beside the JSON one', () => {
    const { content } = document.paths['/v1/query'].post.responses['200'];
    expect(refName(content!['application/json'].schema)).toBe('QueryResponse');
    const events = resolve(content!['text/event-stream'].schema);
    expect(events.type).toBe('string');
    for (const event of ['sources', 'answer', 'context', 'metadata', 'error']) expect(events.description).toContain(`\`${event}\``);
  });

  it('passes the Redocly linter (its recommended rules, as `redocly lint` runs them) with no errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loci-openapi-'));
    try {
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document));
      const run = spawnSync(process.execPath, ['test/support/lint-openapi.mjs', join(dir, 'openapi.json'), '--json'], { encoding: 'utf8' });
      const problems = JSON.parse(run.stdout) as { severity: string; rule: string; at: string }[];
      expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
