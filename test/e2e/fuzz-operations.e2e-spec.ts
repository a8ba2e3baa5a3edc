import fc from 'fast-check';
import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import { JWT_AUDIENCE, JWT_ISSUER } from '@loci/auth';
import { errorSurfaceOf, ErrorSurface, jsonBodyLimitOf } from '@loci/http';
import { createTenant, createTenantWithPeople, createUser, listRoutes, RouteInfo, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Issue 13, item 2: no input gives a 5xx. Walks every operation of the app's own /openapi.json
 * and sends random bodies, headers, path and query values (wrong types, nulls, NUL, unpaired
 * surrogates, huge and deeply nested values, `__proto__`/`constructor` keys) with credentials
 * that get past the guard, asserting a status below 500 and an error body in the surface's
 * shape, and a status the operation's responses document. Fixed seed and a bounded number of
 * runs per operation, so CI sees the same requests.
 */
const SEED = Number(process.env.LOCI_FUZZ_SEED ?? 20_13_02);
const RUNS_PER_OPERATION = Number(process.env.LOCI_FUZZ_RUNS ?? 30);
/** A bound on the walk (about 30-50 s at 30 runs on two busy cores), not a timing assertion. */
const WALK_TIMEOUT_MS = Math.max(240_000, RUNS_PER_OPERATION * 8_000);

/** Past the 64 KiB limit of the question routes; within the 1 MiB of the others, past every maxLength. */
const HUGE = 'x'.repeat(70 * 1024);
/** Deeper than anything a schema reads: the parser and the validators must not fall over. */
const DEEP_ARRAY = '['.repeat(5_000) + ']'.repeat(5_000);
const DEEP_OBJECT = '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000);

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  maxLength?: number;
  pattern?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  nullable?: boolean;
  required?: string[];
};
type Parameter = { name: string; in: 'path' | 'query' | 'header'; schema?: JsonSchema };
type Operation = {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: JsonSchema;
  auth: string;
  /** The statuses its responses document. */
  documented: Set<number>;
};

interface FuzzRequest {
  credential: string | undefined;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const hostileString = (huge: boolean): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\ud800', 'x\udfff', 'Ab\u0007', '\u202eevil', '😀', '__proto__', 'constructor'),
    fc.constantFrom('%00', '../..', '0', '-1', '1e309', 'null', 'true', 'main', randomUUID(), '2025-01-31T09:00:00Z'),
    ...(huge ? [fc.constant(HUGE)] : []),
  );

/** Any JSON value, small, with hostile strings and keys. */
const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString(false),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(hostileString(false), fc.constantFrom('__proto__', 'constructor', 'prototype')), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Strings that pass most fields' checks, so that the other fields' hostile values reach deeper. */
const plainString = fc.constantFrom('u1', 'Alice works at Acme since 2023.', 'Where does Alice work?', 'main', 'fuzz-password-123', 'none');

/** A value for a schema: mostly one that passes (so a request gets past the first check), sometimes anything. */
function valueFor(schema: JsonSchema | undefined, huge: boolean, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return hostileJson;
  const hostile = hostileFor(schema, huge, depth);
  return fc.oneof({ weight: 6, arbitrary: passingFor(schema, huge, depth) }, { weight: 1, arbitrary: hostile });
}

function passingFor(schema: JsonSchema, huge: boolean, depth: number): fc.Arbitrary<unknown> {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => passingFor(s, huge, depth + 1)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'date-time') return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString());
      if (schema.format === 'date') return fc.constant('2025-01-31');
      if (schema.format === 'email') return fc.nat().map((n) => `fuzz${n}@example.test`);
      if (schema.pattern) {
        const matching = ['main', 'u1', '1'].filter((v) => new RegExp(schema.pattern!).test(v));
        if (matching.length > 0) return fc.constantFrom(...matching);
      }
      return plainString;
    case 'integer':
    case 'number':
      return fc.integer({ min: 0, max: 100 });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(passingFor(schema.items ?? {}, huge, depth + 1), { maxLength: 3 });
    case 'object':
      return objectFor(schema, huge, depth);
    default:
      return fc.constant(undefined);
  }
}

/** Edge values of the field's own type (and any JSON at all, now and then). */
function hostileFor(schema: JsonSchema, huge: boolean, depth: number): fc.Arbitrary<unknown> {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => valueFor(s, huge, depth + 1)), hostileJson);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const edges: fc.Arbitrary<unknown>[] = [];
  if (schema.enum) edges.push(fc.constantFrom(...schema.enum));
  for (const type of types) {
    switch (type) {
      case 'string':
        if (schema.format === 'date-time' || schema.format === 'date') {
          edges.push(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()));
        }
        if (schema.format === 'email') edges.push(fc.emailAddress(), hostileString(false).map((s) => `a${s}@example.test`));
        // Huge strings only where they are refused cheaply (a maxLength, or the 64 KiB limit):
        // a huge free text is real work (chunking, extraction), not a fuzz case.
        edges.push(hostileString(huge || schema.maxLength !== undefined));
        break;
      case 'integer':
      case 'number':
        edges.push(fc.integer({ min: -5, max: 300 }), fc.double(), fc.constantFrom(0, -1, 1e308, 2 ** 53 + 1));
        break;
      case 'boolean':
        edges.push(fc.boolean());
        break;
      case 'array':
        edges.push(fc.array(valueFor(schema.items, huge, depth + 1), { maxLength: 4 }));
        break;
      case 'object':
        edges.push(objectFor(schema, huge, depth));
        break;
    }
  }
  if (schema.nullable) edges.push(fc.constant(null));
  if (edges.length === 0) return hostileJson;
  return fc.oneof({ weight: 4, arbitrary: fc.oneof(...edges) }, { weight: 1, arbitrary: hostileJson });
}

function objectFor(schema: JsonSchema, huge: boolean, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries(schema.properties ?? {});
  const known = fc.record(
    Object.fromEntries(properties.map(([name, s]) => [name, valueFor(s, huge, depth + 1)])),
    { requiredKeys: (schema.required ?? []).filter((name) => schema.properties?.[name]) },
  );
  const extra = fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'prototype', 'extra', '\u0000'), hostileJson, { maxKeys: 2 });
  return fc
    .tuple(known, fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extra }))
    .map(([fields, more]) => {
      // Own properties named __proto__ (as JSON.parse makes them), not prototype changes.
      const body: Record<string, unknown> = {};
      for (const [key, value] of [...Object.entries(fields), ...Object.entries(more)]) {
        Object.defineProperty(body, key, { value, enumerable: true, writable: true, configurable: true });
      }
      return body;
    });
}

/** Percent-encodes a path or query value, unpaired surrogates included (as the CESU-8 bytes a sloppy client sends). */
function encodeValue(value: string): string {
  let out = '';
  for (const ch of value) {
    try {
      out += encodeURIComponent(ch);
    } catch {
      const c = ch.charCodeAt(0);
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    }
  }
  return out;
}

/** Header values a client can send at all: tab, printable ASCII and Latin-1. */
const headerValue = hostileString(false).map((s) => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?'));

function expectSurfaceShape(surface: ErrorSurface, isMcp: boolean, status: number, body: any, requestId: string | undefined): void {
  const shown = JSON.stringify(body)?.slice(0, 300);
  const fail = (what: string) => {
    throw new Error(`${status} with ${what}: ${shown}`);
  };
  if (typeof body !== 'object' || body === null) fail('no JSON error body');
  // /mcp's transport answers what it refuses (Accept, method, JSON-RPC framing) as JSON-RPC 2.0
  // error objects, which MCP clients parse; Loci's own refusals there (auth, body size) keep the
  // generic shape.
  if (isMcp && body.jsonrpc === '2.0') {
    if (typeof body.error?.code !== 'number' || typeof body.error?.message !== 'string' || !('id' in body)) fail('a malformed JSON-RPC error');
    return;
  }
  switch (surface) {
    case 'fastapi':
      if (!('detail' in body)) fail('no "detail"');
      break;
    case 'gb':
      if (typeof body.error !== 'string') fail('no "error" string');
      break;
    case 'generic':
      if (typeof body.error?.code !== 'string' || typeof body.error?.message !== 'string') fail('no error.code/message');
      if (body.request_id !== requestId) fail('no request_id');
      break;
  }
}

describe('fuzzing every operation of /openapi.json', () => {
  let t: TestApp;
  let operator: TestUser;
  let people: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let operations: Operation[];
  const ids: Record<string, string[]> = {};
  let foreignTenantToken: string;

  beforeAll(async () => {
    // No in-process ingestion: a document posted here is stored, not processed while the test runs.
    // Its random logins all come from loopback: on a Redis shared with other test runs, counting
    // them per address would lock loopback out for the other files' login tests. Per email they
    // are still counted, and a 429 is one more 4xx the walk checks the shape of.
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_RUN_WORKER: 'false', LOCI_LOGIN_MAX_FAILURES_PER_ADDRESS: '0' });
    operator = await createUser(t.app, null, 'operator');
    people = await createTenantWithPeople(t.app);
    await t.http.patch(`/v1/admin/tenants/${people.tenant.id}/limits`).set('Authorization', `Bearer ${operator.token}`).send({ tier: 'enterprise' });
    const victim = await createTenant(t.app);
    const deletable = await createTenant(t.app);
    // A user the user routes may change or delete (not one whose token the walk signs in with).
    const spare = await createUser(t.app, people.tenant.id, 'member');
    // Memory for the plausible user and dataset, so gb queries get past "no such dataset".
    await t.http.post('/v1/gb/remember').set('X-API-Key', people.apiKey.key).send({ user_id: 'u1', text: 'Alice works at Acme since 2023.' }).expect(200);
    const document = await t.http.post('/v1/documents').set('X-API-Key', people.apiKey.key).send({ name: 'fuzz', text: 'Alice works at Acme.' });
    Object.assign(ids, {
      tenantId: [victim.id, people.tenant.id],
      deletableTenantId: [deletable.id],
      userId: [spare.id],
      documentId: [document.body.document_id],
      keyId: [randomUUID()],
      request_id: [randomUUID()],
      name: ['main'],
    });
    foreignTenantToken = await t.app
      .get(JwtService)
      .signAsync({ sub: randomUUID(), tid: 'not-a-uuid', role: 'admin' }, { algorithm: 'HS256', issuer: JWT_ISSUER, audience: JWT_AUDIENCE, expiresIn: 600 });

    const { body: document_ } = await t.http.get('/openapi.json').expect(200);
    const routes = new Map(listRoutes(t.app).map((r: RouteInfo) => [`${r.method} ${r.path}`, r.auth]));
    operations = Object.entries(document_.paths as Record<string, Record<string, any>>).flatMap(([path, byMethod]) =>
      Object.entries(byMethod).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters ?? []) as Parameter[],
        body: op.requestBody?.content?.['application/json']?.schema ?? op.requestBody?.content?.['multipart/form-data']?.schema,
        auth: routes.get(`${method.toUpperCase()} ${path}`) ?? 'public',
        documented: new Set(Object.keys(op.responses ?? {}).map(Number)),
      })),
    );
  });
  afterAll(() => t.close());

  /** Credentials that pass the guard for the route (and, now and then, ones that do not). */
  function credentialFor(auth: string): fc.Arbitrary<string | undefined> {
    const valid: string[] = [];
    if (auth === 'public') valid.push('');
    if (auth.includes('operator')) valid.push(`Bearer ${operator.token}`);
    if (auth.includes('admin') || auth.includes('any role')) valid.push(`Bearer ${people.admin.token}`);
    if (auth.includes('member')) valid.push(`Bearer ${people.member.token}`);
    if (auth.includes('api_key')) valid.push(`X-API-Key ${people.apiKey.key}`, `Bearer ${people.apiKey.key}`);
    const invalid = ['', 'Bearer nonsense', 'Bearer loci_not-a-key', `Bearer ${foreignTenantToken}`, 'X-API-Key loci_\u00ff\u00fe'];
    return fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...valid) }, { weight: 1, arbitrary: fc.constantFrom(...invalid) }).map((c) => c || undefined);
  }

  /**
   * Deleting a tenant is walked on a tenant of its own: deleting the walk's tenant would turn
   * every later operation into a 401 and leave them unfuzzed.
   */
  function idsFor(op: Operation, name: string): string[] {
    if (op.method === 'DELETE' && op.path === '/v1/admin/tenants/{tenantId}' && name === 'tenantId') return ids.deletableTenantId;
    return ids[name] ?? ['x'];
  }

  function requestFor(op: Operation): fc.Arbitrary<FuzzRequest> {
    const huge = jsonBodyLimitOf(op.path) === '64kb';
    const pathParams = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const path = fc
      .tuple(...pathParams.map((name) => fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...idsFor(op, name)) }, { weight: 2, arbitrary: hostileString(false) })))
      .map((values) => pathParams.reduce((p, name, i) => p.replace(`{${name}}`, encodeValue(values[i])), op.path));
    const declared = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
    const queryName = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...declared, ...(declared.length ? [] : ['extra'])) }, { weight: 1, arbitrary: fc.constantFrom('extra', 'a[b]', '__proto__', '') });
    const queryValue = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('u1', '10', '0', '2025-01-01') }, { weight: 2, arbitrary: hostileString(false) });
    const query = fc
      .array(fc.tuple(queryName, queryValue), { maxLength: 4 })
      .map((pairs) => pairs.map(([k, v]) => `${encodeValue(k)}=${encodeValue(v)}`).join('&'));
    const headers = fc.record(
      {
        'Content-Type': fc.constantFrom(
          'application/json',
          'application/json; charset=utf-16',
          'application/json; charset=latin1',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data',
          'multipart/form-data; boundary=x',
          'application/vnd.api+json',
        ),
        'Content-Encoding': fc.constantFrom('gzip', 'br', 'identity', 'x-bogus'),
        'X-Request-Id': headerValue,
        Accept: fc.constantFrom('*/*', 'text/html', 'application/xml'),
      },
      { requiredKeys: [] },
    );
    const rawBody = fc.constantFrom('', '{', '{"a":', 'null', '[]', '"\\u0000"', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', DEEP_ARRAY, DEEP_OBJECT);
    const body = fc.oneof(
      { weight: 6, arbitrary: (op.body ? objectFor(op.body, huge, 0) : hostileJson).map((v) => JSON.stringify(v)) },
      { weight: 2, arbitrary: rawBody },
      { weight: 1, arbitrary: hostileJson.map((v) => JSON.stringify(v)) },
      { weight: op.body ? 0 : 20, arbitrary: fc.constant(undefined) },
    );
    return fc
      .record({ credential: credentialFor(op.auth), path, query, headers, body, plainJson: fc.integer({ min: 0, max: 3 }).map((n) => n > 0) })
      .map(({ plainJson, headers: h, ...rest }) => ({
        ...rest,
        // Most runs send a well-labelled JSON body, so the schemas see most of them.
        headers: plainJson ? { 'Content-Type': 'application/json' } : (h as Record<string, string>),
      }));
  }

  async function send(op: Operation, r: FuzzRequest) {
    const url = r.query ? `${r.path}?${r.query}` : r.path;
    let call = (t.http as any)[op.method.toLowerCase()](url);
    if (r.credential) {
      const [scheme, value] = [r.credential.slice(0, r.credential.indexOf(' ')), r.credential.slice(r.credential.indexOf(' ') + 1)];
      call = scheme === 'X-API-Key' ? call.set('X-API-Key', value) : call.set('Authorization', `Bearer ${value}`);
    }
    for (const [name, value] of Object.entries(r.headers)) call = call.set(name, value);
    if (r.body !== undefined) call = call.send(r.body);
    return call;
  }

  it('answers every operation below 500, in the surface’s error shape', async () => {
    expect(operations.length).toBeGreaterThan(20);
    const failures: string[] = [];
    const statuses: string[] = [];
    for (const op of operations) {
      const surface = errorSurfaceOf(op.path);
      const result = await fc.check(
        fc.asyncProperty(requestFor(op), async (r) => {
          const response = await send(op, r);
          if (process.env.LOCI_FUZZ_DEBUG) statuses.push(`${op.method} ${op.path} ${response.status}${process.env.LOCI_FUZZ_DEBUG === op.path ? ` ${JSON.stringify(response.body).slice(0, 150)}` : ""}`);
          if (response.status >= 500) throw new Error(`${response.status}: ${JSON.stringify(response.body)?.slice(0, 300)}`);
          // The document is what clients are generated from: an error it does not list is a gap in it.
          if (response.status >= 400 && !op.documented.has(response.status)) throw new Error(`${response.status}, not documented: ${JSON.stringify(response.body)?.slice(0, 200)}`);
          if (response.status >= 400) expectSurfaceShape(surface, op.path === '/mcp', response.status, response.body, response.headers['x-request-id']);
        }),
        { seed: SEED, numRuns: RUNS_PER_OPERATION },
      );
      if (result.failed) {
        const counterexample = JSON.stringify(result.counterexample?.[0], (_k, v) => (typeof v === 'string' && v.length > 200 ? `${v.slice(0, 60)}…(${v.length})` : v));
        failures.push(`${op.method} ${op.path}: ${(result.errorInstance as Error)?.message}\n    ${counterexample}`);
      }
      // An operator may have closed the platform's spend: open it again for the next operation.
      await t.http.put('/v1/admin/platform/limits').set('Authorization', `Bearer ${operator.token}`).send({ daily_cost_cap_usd: null });
      // Or suspended the walk's tenant: resume it, or every later operation is a 403 unfuzzed.
      await t.http.post(`/v1/admin/tenants/${people.tenant.id}/resume`).set('Authorization', `Bearer ${operator.token}`).expect(200);
    }
    if (process.env.LOCI_FUZZ_DEBUG) {
      const counts = new Map<string, number>();
      for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
      console.log([...counts].map(([k, n]) => `${k} ×${n}`).join('\n'));
    }
    expect(failures).toEqual([]);
  }, WALK_TIMEOUT_MS);

  it('left no polluted prototype behind', () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
