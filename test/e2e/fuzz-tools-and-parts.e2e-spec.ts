import fc from 'fast-check';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Issue 33: the fuzz walk (fuzz-operations.e2e-spec.ts) reaches each operation of
 * /openapi.json, but /mcp only as one operation whose body is a JSON-RPC envelope, and uploads
 * only as JSON. This walk goes further on both: every MCP tool the server lists is called with
 * arguments that are oversized (900,000-character strings, 200,000-element arrays), deeply
 * nested or of the wrong shape, and POST /v1/documents gets multipart bodies of many parts,
 * fields, headers and sizes. Every answer is below 500, in the surface's shape, and no tool
 * result carries SQL or the tenant's own text. Fixed seed, bounded runs.
 */
const SEED = Number(process.env.LOCI_FUZZ_SEED ?? 20_33_01);
const RUNS_PER_TOOL = Number(process.env.LOCI_FUZZ_RUNS ?? 30);
const WALK_TIMEOUT_MS = 240_000;

const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
/** Marks the walk's own text, so a result that echoes it (a failed statement's parameters) is seen. */
const MARK = 'fuzzmark';
/** Distinct words, as a pasted document: its lexemes do not collapse into a few (PostgreSQL's tsvector holds at most 1 MB). */
const HUGE_TEXT = `${MARK} ${Array.from({ length: 120_000 }, (_, i) => `w${i.toString(36)}q`).join(' ')}`.slice(0, 900_000);
const HUGE_ARRAY = Array.from({ length: 200_000 }, (_, i) => `k${i}`);

/** A value nested `depth` levels deep, as objects or arrays. */
function nested(depth: number, asArrays: boolean): unknown {
  let value: unknown = MARK;
  for (let i = 0; i < depth; i++) value = asArrays ? [value] : { a: value };
  return value;
}

/** Anything at all: oversized, deeply nested or of another type than the schema's. */
const hostileArgument: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(HUGE_TEXT, HUGE_ARRAY, ['Alice', MARK]),
  fc.tuple(fc.integer({ min: 10, max: 3_000 }), fc.boolean()).map(([depth, asArrays]) => nested(depth, asArrays)),
  fc.constantFrom(null, 0, -1, 1e308, true, '', '\u0000', '\ud800', {}, []),
);

type PropertySchema = { type?: string; enum?: string[]; items?: PropertySchema };

/** A value for one argument: mostly one its schema takes (so the others reach deeper), often a hostile one. */
function argumentFor(schema: PropertySchema): fc.Arbitrary<unknown> {
  const fitting = schema.enum
    ? fc.constantFrom(...schema.enum)
    : schema.type === 'array'
      ? fc.constantFrom(['Alice', 'Acme'], HUGE_ARRAY, [HUGE_TEXT])
      : fc.constantFrom('u1', 'main', `Where does Alice work? ${MARK}`, `Alice works at Acme. ${MARK}`, HUGE_TEXT);
  return fc.oneof({ weight: 3, arbitrary: fitting }, { weight: 1, arbitrary: hostileArgument });
}

interface ListedTool {
  name: string;
  inputSchema: { properties?: Record<string, unknown>; required?: string[] };
}

/** A multipart body written by hand: a client may send any number of parts, fields and headers. */
interface Part {
  name: string;
  filename?: string;
  headers: number;
  size: number;
}

function multipartBody(parts: Part[], boundary: string): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}`;
    const extra = Array.from({ length: part.headers }, (_, i) => `X-Extra-${i}: ${i}\r\n`).join('');
    const type = part.filename ? 'Content-Type: text/plain\r\n' : '';
    pieces.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}${extra}\r\n`));
    pieces.push(Buffer.alloc(part.size, part.filename ? 'Alice works at Acme. ' : 'x'));
    pieces.push(Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(pieces);
}

const part: fc.Arbitrary<Part> = fc.record({
  name: fc.constantFrom('name', 'document_date', 'file', 'extra', 'x'.repeat(300), '__proto__'),
  filename: fc.option(fc.constantFrom('a.txt', 'b.md', 'c.bin', '../../etc/passwd'), { nil: undefined }),
  headers: fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 2_100 }) }),
  size: fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 0, max: 200 }) }, { weight: 1, arbitrary: fc.integer({ min: 10_000, max: 300_000 }) }),
});
/** Mostly a few parts; now and then hundreds, or thousands of empty ones. */
const parts: fc.Arbitrary<Part[]> = fc.oneof(
  { weight: 4, arbitrary: fc.array(part, { maxLength: 6 }) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 400 }).map((n) => Array.from({ length: n }, (_, i) => ({ name: `f${i}`, headers: 0, size: 1_024 }))) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 5_000 }).map((n) => Array.from({ length: n }, (_, i) => ({ name: `e${i}`, headers: 0, size: 0 }))) },
);

describe('fuzzing the MCP tools and multipart uploads', () => {
  let t: TestApp;
  let people: Awaited<ReturnType<typeof createTenantWithPeople>>;

  beforeAll(async () => {
    // No in-process ingestion: an upload that is accepted is stored, not processed, while the walk runs.
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_RUN_WORKER: 'false' });
    people = await createTenantWithPeople(t.app);
    await t.http.post('/v1/gb/remember').set('X-API-Key', people.apiKey.key).send({ user_id: 'u1', text: 'Alice works at Acme since 2023.' }).expect(200);
  });
  afterAll(() => t.close());

  const mcp = (body: unknown) => t.http.post('/mcp').set('X-API-Key', people.apiKey.key).set(MCP_HEADERS).send(JSON.stringify(body));

  it('calls every MCP tool with oversized, nested and ill-typed arguments: below 500, and no SQL or tenant text in a result', async () => {
    const listed = await mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' }).expect(200);
    const tools = listed.body.result.tools as ListedTool[];
    expect(tools.map((tool) => tool.name).sort()).toEqual(['ask', 'forget', 'query', 'remember']);
    const failures: string[] = [];
    for (const tool of tools) {
      const properties = Object.entries((tool.inputSchema.properties ?? {}) as Record<string, PropertySchema>);
      const args = fc
        .tuple(
          fc.record(Object.fromEntries(properties.map(([name, schema]) => [name, argumentFor(schema)])), { requiredKeys: tool.inputSchema.required ?? [] }),
          fc.option(hostileArgument, { nil: undefined }),
        )
        .map(([known, extra]) => (extra === undefined ? known : { ...known, extra }));
      const result = await fc.check(
        fc.asyncProperty(args, async (callArgs) => {
          const response = await mcp({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: tool.name, arguments: callArgs } });
          const shown = JSON.stringify(response.body)?.slice(0, 300);
          if (response.status >= 500) throw new Error(`${response.status}: ${shown}`);
          if (response.status >= 400) {
            // Loci's own refusals (the body's size) keep the generic shape; the transport's are JSON-RPC.
            if (response.body?.jsonrpc !== '2.0' && typeof response.body?.error?.code !== 'string') throw new Error(`${response.status} in no known shape: ${shown}`);
            return;
          }
          const text = JSON.stringify(response.body.result ?? response.body.error ?? null);
          if (response.body.result?.isError || response.body.error) {
            // A refusal explains itself (a 404 may name the user_id it looked for); it never repeats a failed statement or the tenant.
            if (/\b(select|insert|update|delete)\b.*\b(from|into|set)\b/i.test(text)) throw new Error(`SQL in a tool error: ${text.slice(0, 300)}`);
            if (text.includes(people.tenant.id)) throw new Error(`the tenant id in a tool error: ${text.slice(0, 300)}`);
            // A failure of Loci's own (a tool result led by a 5xx) says only "internal error" and the request id.
            const internal = /"text":"5\d\d: /.test(text) || typeof response.body.error?.code === 'number' && response.body.error.code === -32603;
            if (internal && (text.includes(MARK) || !/internal error/i.test(text))) throw new Error(`an internal failure told the caller more than "internal error": ${text.slice(0, 300)}`);
          }
        }),
        { seed: SEED, numRuns: RUNS_PER_TOOL },
      );
      if (result.failed) {
        const shown = JSON.stringify(result.counterexample?.[0], (_k, v) => (typeof v === 'string' && v.length > 100 ? `${v.slice(0, 40)}…(${v.length})` : Array.isArray(v) && v.length > 20 ? `[${v.length} items]` : v));
        failures.push(`${tool.name}: ${(result.errorInstance as Error)?.message}\n    ${shown?.slice(0, 400)}`);
      }
    }
    expect(failures).toEqual([]);
  }, WALK_TIMEOUT_MS);

  it('answers multipart uploads of many parts, fields and headers below 500, in the generic error shape', async () => {
    const boundary = 'fuzzboundary7MA4YWxkTrZu0gW';
    const result = await fc.check(
      fc.asyncProperty(parts, async (bodyParts) => {
        const response = await t.http
          .post('/v1/documents')
          .set('X-API-Key', people.apiKey.key)
          .set('Content-Type', `multipart/form-data; boundary=${boundary}`)
          .send(multipartBody(bodyParts, boundary));
        const shown = JSON.stringify(response.body)?.slice(0, 300);
        if (response.status >= 500) throw new Error(`${response.status}: ${shown}`);
        if (response.status >= 400) {
          if (typeof response.body?.error?.code !== 'string' || typeof response.body?.error?.message !== 'string') throw new Error(`${response.status} without error.code/message: ${shown}`);
          if (response.body.request_id !== response.headers['x-request-id']) throw new Error(`${response.status} without its request_id: ${shown}`);
        }
      }),
      { seed: SEED, numRuns: RUNS_PER_TOOL },
    );
    if (result.failed) {
      const shown = JSON.stringify((result.counterexample?.[0] as Part[]).slice(0, 5));
      throw new Error(`${(result.errorInstance as Error)?.message}\n    ${(result.counterexample?.[0] as Part[]).length} parts, first: ${shown}`);
    }
  }, WALK_TIMEOUT_MS);
});
