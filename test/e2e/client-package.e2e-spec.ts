import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { askStream, createLociClient, LociApiError, QueryStreamEvent, unwrap } from '@loci/client';
import { createTenantWithPeople, createUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

const ROOT = join(__dirname, '../..');
const PACKAGE = join(ROOT, 'packages/client');

/**
 * packages/client: its committed document and types are what the app serves today (else
 * `npm run client:generate`), and its client speaks to the real app with each surface's errors.
 */
describe('the @loci/client package', () => {
  let t: TestApp;
  let baseUrl: string;
  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  it('commits the document the app serves and the types openapi-typescript makes of it', async () => {
    const { body: served } = await t.http.get('/openapi.json').expect(200);
    const committed = JSON.parse(readFileSync(join(PACKAGE, 'openapi.json'), 'utf8'));
    // A stale copy: run `npm run client:generate` and commit what it writes.
    expect(committed).toEqual(served);
    const dir = mkdtempSync(join(tmpdir(), 'loci-client-'));
    try {
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(served, null, 2));
      // The package's own generate:types command, pointed at the served document.
      const [, ...args] = (JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')).scripts['generate:types'] as string).split(' ');
      const paths: Record<string, string> = { 'openapi.json': join(dir, 'openapi.json'), 'src/schema.ts': join(dir, 'schema.ts') };
      execFileSync(process.execPath, [join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), ...args.map((a) => paths[a] ?? a)], { stdio: 'pipe' });
      expect(readFileSync(join(PACKAGE, 'src/schema.ts'), 'utf8')).toBe(readFileSync(join(dir, 'schema.ts'), 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('calls the API with a token or an API key and returns typed data', async () => {
    const people = await createTenantWithPeople(t.app);
    const admin = createLociClient({ baseUrl, token: () => people.admin.token });
    const keys = await unwrap(admin.GET('/v1/api-keys'));
    expect(keys.items.map((k) => k.id)).toContain(people.apiKey.id);
    const program = createLociClient({ baseUrl, apiKey: people.apiKey.key });
    const submitted = await unwrap(program.POST('/v1/documents', { body: { name: 'client', text: 'Alice works at Acme.' } }));
    const document = await unwrap(program.GET('/v1/documents/{documentId}', { params: { path: { documentId: submitted.document_id } } }));
    expect(document.document_id).toBe(submitted.document_id);
    const page = await unwrap(program.GET('/v1/documents', { params: { query: { limit: 1 } } }));
    expect(page.limit).toBe(1);
  });

  it('asks for a streamed answer and yields its typed events; a refusal before the stream is a LociApiError', async () => {
    const people = await createTenantWithPeople(t.app);
    const program = createLociClient({ baseUrl, apiKey: people.apiKey.key });
    const question = { query: 'Where does Alice work?', mode: 'naive' as const, include_sources: true };
    const events: QueryStreamEvent[] = [];
    for await (const event of askStream(program, question)) events.push(event);
    expect(events.map((e) => e.event)).toEqual(['sources', 'answer', 'metadata']);
    // Merged, the events are the JSON answer to the same question.
    const whole = await unwrap(program.POST('/v1/query', { body: question }));
    const text = events.flatMap((e) => (e.event === 'answer' ? [e.data.text] : [])).join('');
    expect(text).toBe(whole.answer);
    const last = events[2];
    expect(last.event === 'metadata' && last.data.metadata.model).toBe(whole.metadata.model);
    const refused = await (async () => {
      for await (const event of askStream(program, { query: 'Who?', mode: 'nonsense' as 'mix' })) void event;
    })().catch((e) => e);
    expect(refused).toBeInstanceOf(LociApiError);
    expect(refused).toMatchObject({ status: 422 });
    expect(refused.message).toMatch(/^mode: /);
  });

  it("throws each surface's error with its message and code", async () => {
    const people = await createTenantWithPeople(t.app);
    const operator = await createUser(t.app, null, 'operator');
    const client = createLociClient({ baseUrl, token: operator.token });
    const generic = await unwrap(client.GET('/v1/admin/tenants/{tenantId}', { params: { path: { tenantId: '00000000-0000-4000-8000-000000000000' } } })).catch((e) => e);
    expect(generic).toBeInstanceOf(LociApiError);
    expect(generic).toMatchObject({ status: 404, code: 'not_found', message: 'No such tenant.' });
    const program = createLociClient({ baseUrl, apiKey: people.apiKey.key });
    const gb = await unwrap(program.POST('/v1/gb/query', { body: { user_id: 'nobody', query: 'Who?', dataset: 'none' } })).catch((e) => e);
    expect(gb).toMatchObject({ status: 404 });
    expect(gb.message).toMatch(/dataset/);
    const v1 = await unwrap(program.POST('/v1/query', { body: { query: 'Who?', mode: 'nonsense' as 'mix' } })).catch((e) => e);
    expect(v1).toMatchObject({ status: 422 });
    expect(v1.message).toMatch(/^mode: /);
  });
});
