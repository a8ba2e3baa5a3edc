import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFreshPostgresDatabase, HealthProbe, startHealthProbe } from '@loci/testing';
import { BuiltApi, startBuiltApi } from '../../support/built-api';

/**
 * Issue 33, item 1: a multipart upload of many large text fields beside a small file. multer
 * bounded the file only and kept every field in memory, so 200 fields of 1 MiB ended the API
 * process (heap exhausted under npm start's 256 MB) for every tenant. The built API runs here
 * as npm start runs it, under that heap; each bound answers in the error shape and names
 * itself, the rest of the body is never kept, and a /healthz probe runs beside every request.
 */

const postgres = process.env.DATABASE_URL;
const redis = process.env.REDIS_URL;
const OPERATOR = { email: 'op@multipart.test', password: 'operator-password-1' };
const MiB = 1024 * 1024;

/** One part of a multipart body; `value` repeats `times` times so a large field is never built whole. */
interface Part {
  name?: string;
  value: string | Buffer;
  times?: number;
  filename?: string;
  /** Header lines instead of the usual Content-Disposition (and Content-Type for a file). */
  headers?: string[];
}

/** A multipart body streamed part by part, as a generator-backed stream for fetch's `duplex: 'half'`. */
function multipart(parts: Part[]): { contentType: string; body: ReadableStream<Uint8Array> } {
  const boundary = `----loci${randomBytes(8).toString('hex')}`;
  async function* chunks(): AsyncGenerator<Buffer> {
    for (const part of parts) {
      const headers = part.headers ?? [
        `Content-Disposition: form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}`,
        ...(part.filename ? ['Content-Type: text/plain'] : []),
      ];
      yield Buffer.from(`--${boundary}\r\n${headers.join('\r\n')}\r\n\r\n`);
      const value = typeof part.value === 'string' ? Buffer.from(part.value) : part.value;
      for (let i = 0; i < (part.times ?? 1); i++) yield value;
      yield Buffer.from('\r\n');
    }
    yield Buffer.from(`--${boundary}--\r\n`);
  }
  const iterator = chunks();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
  return { contentType: `multipart/form-data; boundary=${boundary}`, body };
}

const smallFile: Part = { name: 'file', filename: 'notes.txt', value: 'Alice Johnson works at Acme Corporation.' };

interface ErrorBody {
  error: { code: string; message: string };
  request_id: string;
}

describe('multipart fields (hostile, built API under a 256 MB heap)', () => {
  let dir: string;
  let api: BuiltApi;
  let probe: HealthProbe;
  let token: string;
  let dropDatabase: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'loci-multipart-'));
    const database = postgres ? await createFreshPostgresDatabase(postgres) : undefined;
    dropDatabase = database?.drop;
    api = await startBuiltApi(
      {
        ...(database ? { DATABASE_URL: database.url } : {}),
        ...(redis ? { REDIS_URL: redis } : {}),
        LOCI_DATA_DIR: join(dir, 'data'),
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        // Uploads are only queued here: no model is called for them.
        LOCI_RUN_WORKER: 'false',
        LOCI_BOOTSTRAP_OPERATOR_EMAIL: OPERATOR.email,
        LOCI_BOOTSTRAP_OPERATOR_PASSWORD: OPERATOR.password,
      },
      120_000,
      ['--max-old-space-size=256'],
    );
    token = await memberToken(api);
    probe = startHealthProbe(api.baseUrl);
  }, 300_000);

  afterAll(async () => {
    await probe?.stop();
    await api?.stop();
    await dropDatabase?.();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh tenant's member, made through the API by the bootstrap operator. */
  async function memberToken(target: BuiltApi): Promise<string> {
    const post = async (path: string, body: object, bearer?: string): Promise<Record<string, string>> => {
      const response = await fetch(`${target.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
        body: JSON.stringify(body),
      });
      const json = (await response.json()) as Record<string, string>;
      if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    };
    const operator = (await post('/v1/auth/login', OPERATOR)).access_token;
    const tenant = await post('/v1/admin/tenants', { name: `multipart-${randomBytes(3).toString('hex')}`, tier: 'pro', billing: 'platform' }, operator);
    const member = { email: `member-${randomBytes(3).toString('hex')}@multipart.test`, password: 'member-password-1' };
    await post(`/v1/admin/tenants/${tenant.id}/users`, { ...member, role: 'member' }, operator);
    return (await post('/v1/auth/login', member)).access_token;
  }

  async function upload(parts: Part[]): Promise<{ status: number; body: unknown }> {
    const { contentType, body } = multipart(parts);
    const response = await fetch(`${api.baseUrl}/v1/documents`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${token}` },
      body,
      duplex: 'half',
    }).catch((error: Error) => {
      // The process died under the request (the heap exhausted): its last words say how.
      throw new Error(`${error.message} (${String(error.cause)}); the API's output ends:\n${api.output().slice(-1500)}`);
    });
    return { status: response.status, body: await response.json() };
  }

  async function documentNames(): Promise<string[]> {
    const response = await fetch(`${api.baseUrl}/v1/documents?limit=100`, { headers: { authorization: `Bearer ${token}` } });
    const list = (await response.json()) as { items: Array<{ name: string }> };
    return list.items.map((item) => item.name);
  }

  async function expectAlive(): Promise<void> {
    expect((await fetch(`${api.baseUrl}/healthz`)).status).toBe(200);
  }

  const refusal = (status: number, code: string, message: RegExp) => ({
    status,
    body: { error: { code, message: expect.stringMatching(message) }, request_id: expect.any(String) },
  });

  it('refuses 200 text fields of 1 MiB beside a small file with 413, creates no document, and stays up', async () => {
    const name = `flood-${randomBytes(3).toString('hex')}`;
    // One buffer stands for every field's value: the test itself never holds 200 MiB.
    const mebibyte = Buffer.alloc(MiB, 'a');
    const fields = Array.from({ length: 200 }, (_, i): Part => ({ name: `field${i}`, value: mebibyte }));
    const answer = await upload([{ name: 'name', value: name }, ...fields, smallFile]);
    expect(answer).toEqual(refusal(413, 'payload_too_large', /text field .*longer than 8 KiB/i));
    expect((answer.body as ErrorBody).error.message).toContain('field0');
    await expectAlive();
    expect(await documentNames()).not.toContain(name);
  }, 180_000);

  it('refuses more text fields than the route reads (413, naming the field count limit)', async () => {
    const name = `many-${randomBytes(3).toString('hex')}`;
    const fields = Array.from({ length: 50 }, (_, i): Part => ({ name: `f${i}`, value: 'x' }));
    const answer = await upload([{ name: 'name', value: name }, ...fields, smallFile]);
    expect(answer).toEqual(refusal(413, 'payload_too_large', /more than 8 text fields/i));
    await expectAlive();
    expect(await documentNames()).not.toContain(name);
  }, 60_000);

  it('refuses a text field over the size limit (413, naming the field)', async () => {
    const answer = await upload([{ name: 'name', value: 'n'.repeat(64 * 1024) }, smallFile]);
    expect(answer).toEqual(refusal(413, 'payload_too_large', /text field `name` is longer than 8 KiB/i));
    await expectAlive();
  }, 60_000);

  it('refuses a field name over the size limit (413, naming the limit)', async () => {
    const answer = await upload([{ name: 'n'.repeat(300), value: 'x' }, smallFile]);
    expect(answer).toEqual(refusal(413, 'payload_too_large', /field name is longer than 100 bytes/i));
    await expectAlive();
  }, 60_000);

  it('refuses more parts than the route reads (413, naming the part count limit), counting parts it would skip', async () => {
    // Parts that are neither a field nor a file (no form-data disposition) pass the field and file counts.
    const skipped = Array.from({ length: 50 }, (): Part => ({ headers: ['Content-Disposition: attachment'], value: 'x' }));
    const answer = await upload([...skipped, smallFile]);
    expect(answer).toEqual(refusal(413, 'payload_too_large', /more than 10 parts/i));
    await expectAlive();
  }, 60_000);

  it('refuses a part with too many header pairs (400, naming the part header limit)', async () => {
    const headers = ['Content-Disposition: form-data; name="name"', ...Array.from({ length: 4000 }, (_, i) => `X-Pair-${i}: v`)];
    const answer = await upload([{ headers, value: 'pairs' }, smallFile]);
    expect(answer).toEqual(refusal(400, 'bad_request', /part's headers .*16 KiB/i));
    await expectAlive();
  }, 60_000);

  it('refuses a second file (413, naming the file count limit)', async () => {
    const answer = await upload([smallFile, { ...smallFile, filename: 'more.txt' }]);
    expect(answer).toEqual(refusal(413, 'payload_too_large', /more than 1 file/i));
    await expectAlive();
  }, 60_000);

  it('still takes a normal upload with `name` and `document_date` (202)', async () => {
    const name = `normal-${randomBytes(3).toString('hex')}`;
    const answer = await upload([{ name: 'name', value: name }, { name: 'document_date', value: '2024-05-01' }, smallFile]);
    expect(answer).toEqual({ status: 202, body: { document_id: expect.stringMatching(/^\d+$/), status: 'pending' } });
    expect(await documentNames()).toContain(name);
  }, 60_000);

  it('answered /healthz within 1 s every 200 ms throughout', async () => {
    const report = await probe.stop();
    expect(report.probes).toBeGreaterThan(0);
    expect(report.failed).toEqual([]);
    expect(report.slow).toEqual([]);
  });
});
