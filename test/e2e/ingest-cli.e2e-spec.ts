import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { TenantsRepository } from '@loci/db';
import { createApiKey, createTenant } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';
import { exitCodeOf, summarize, uploadAll } from '../../apps/cli/src/bulk-uploader';
import { collectFiles } from '../../apps/cli/src/collect-files';
import { main } from '../../apps/cli/src/ingest';

/** A stdout/stderr stand-in without a TTY, as in CI: the view prints plain lines. */
function capture() {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

/** The bulk uploader (`npm run ingest`) against the real app on a real port, in-process for speed. */
describe('ingest CLI', () => {
  let t: TestApp;
  let url: string;
  let key: string;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    await t.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const tenant = await createTenant(t.app);
    key = (await createApiKey(t.app, tenant.id)).key;

    dir = mkdtempSync(join(tmpdir(), 'loci-ingest-cli-'));
    mkdirSync(join(dir, 'nested'));
    writeFileSync(join(dir, 'team.txt'), 'Alice Johnson works at Acme Corporation in Berlin. Bob Smith lives in Paris.\n');
    writeFileSync(join(dir, 'nested', 'notes.md'), '# Notes\n\nCarol Diaz works at Initech. Initech acquired Globex in 2019.\n');
    writeFileSync(join(dir, 'tool.exe'), 'MZ not a document');
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (args: string[], env: Record<string, string | undefined> = {}) => {
    const stdout = capture();
    const stderr = capture();
    const code = await main(args, { stdout: stdout.stream, stderr: stderr.stream, env });
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  };

  it('collects accepted files recursively and lists the rest as skipped', async () => {
    const { files, skipped } = await collectFiles([dir]);
    expect(files.map((f) => f.name)).toEqual(['nested/notes.md', 'team.txt']);
    expect(files.map((f) => f.contentType)).toEqual(['text/markdown', 'text/plain']);
    expect(skipped).toEqual([{ path: join(dir, 'tool.exe'), reason: 'unsupported type (.exe)' }]);
  });

  it('uploads every accepted file and waits until each is processed', async () => {
    const { files, skipped } = await collectFiles([dir]);
    const phases: string[] = [];
    const result = await uploadAll(files, skipped, {
      url,
      apiKey: key,
      concurrency: 2,
      pollMs: 50,
      timeoutMs: 30_000,
      onUpdate: (state) => phases.push(`${state.file.name}:${state.phase}`),
    });

    expect(result.aborted).toBeUndefined();
    expect(result.files.map((f) => [f.file.name, f.outcome, f.existing])).toEqual([
      ['nested/notes.md', 'processed', false],
      ['team.txt', 'processed', false],
    ]);
    for (const f of result.files) {
      expect(f.chunksDone).toBe(f.chunksTotal);
      expect(f.counts!.entities).toBeGreaterThan(0);
    }
    expect(phases).toEqual(expect.arrayContaining(['team.txt:uploading', 'team.txt:processed']));

    const summary = summarize(result);
    expect(summary.counts).toEqual({ processed: 2, already_uploaded: 0, failed: 0, deferred: 0, timed_out: 0, skipped: 1, not_finished: 0 });
    expect(summary.totals.chunks).toBe(2);
    expect(summary.totals.entities).toBeGreaterThanOrEqual(4);
    expect(summary.totals.edges).toBeGreaterThanOrEqual(2);
    expect(exitCodeOf(result)).toBe(0);

    // The server agrees: both documents are there, processed, under the names the CLI gave them.
    const listed = await t.http.get('/v1/documents?limit=50').set('X-API-Key', key).expect(200);
    expect(listed.body.items.map((d: { name: string; status: string }) => `${d.name}:${d.status}`).sort()).toEqual([
      'nested/notes.md:processed',
      'team.txt:processed',
    ]);
  });

  it('reports a second run as already uploaded, exit 0, with a summary and plain progress lines', async () => {
    const { code, stdout, stderr } = await run([dir, '--url', url, '--poll-ms', '50'], { LOCI_API_KEY: key });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/skipped .*tool\.exe: unsupported type \(\.exe\)/);
    expect(stdout).toMatch(/\[\d\/2\] team\.txt already uploaded \(document \d+\): 1 chunks/);
    expect(stdout).toMatch(/processed\s+0\n/);
    expect(stdout).toMatch(/already uploaded\s+2\n/);
    expect(stdout).toMatch(/skipped\s+1\n/);
    // Nothing was processed this time: the totals count only what this run did.
    expect(stdout).toMatch(/totals\s+0 chunks, 0 entities, 0 edges \(of the 0 processed in this run\)/);
    expect(stdout).not.toMatch(/\x1b\[/); // no cursor movement without a TTY
  });

  it('finds the server at $LOCI_URL as loci does (--url wins), and totals only what this run processed', async () => {
    const more = mkdtempSync(join(tmpdir(), 'loci-ingest-url-'));
    try {
      // One document the server has (team.txt's content) and one it has not.
      writeFileSync(join(more, 'again.txt'), 'Alice Johnson works at Acme Corporation in Berlin. Bob Smith lives in Paris.\n');
      writeFileSync(join(more, 'new.txt'), 'Erin Hale works at Umbrella Labs in Oslo.\n');
      const { code, stdout, stderr } = await run([more, '--poll-ms', '50'], { LOCI_API_KEY: key, LOCI_URL: url });
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toMatch(/processed\s+1\n/);
      expect(stdout).toMatch(/already uploaded\s+1\n/);
      const newChunks = Number(/new\.txt processed \(document \d+\): (\d+) chunks/.exec(stdout)?.[1]);
      expect(newChunks).toBe(1);
      expect(stdout).toMatch(/totals\s+1 chunks, \d+ entities, \d+ edges \(of the 1 processed in this run\)/);

      // --url is taken over $LOCI_URL; a bad $LOCI_URL is named as such.
      expect((await run([more, '--url', url, '--poll-ms', '50'], { LOCI_API_KEY: key, LOCI_URL: 'http://127.0.0.1:1' })).code).toBe(0);
      const bad = await run([more], { LOCI_API_KEY: key, LOCI_URL: 'not a url' });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/\$LOCI_URL is not a URL: not a url/);
    } finally {
      rmSync(more, { recursive: true, force: true });
    }
  });

  it('reports a file the server refuses with its message, and exits 1', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'loci-ingest-bad-'));
    try {
      writeFileSync(join(bad, 'broken.pdf'), 'this is not a PDF at all');
      writeFileSync(join(bad, 'fine.txt'), 'Dana Scully works at Quantico Bureau.\n');
      const { code, stdout } = await run([bad, '--tenant-key', key, '--url', url, '--poll-ms', '50']);
      expect(code).toBe(1);
      expect(stdout).toMatch(/broken\.pdf FAILED.*HTTP 4\d\d: .+/);
      expect(stdout).toMatch(/fine\.txt processed/);
      expect(stdout).toMatch(/failed\s+1\n\s+broken\.pdf: HTTP 4\d\d: .+\(request .+\)/);
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });

  it("stops when the tenant's daily document quota is used up (exit 1), saying when and that a rerun sends the rest", async () => {
    const quota = mkdtempSync(join(tmpdir(), 'loci-ingest-quota-'));
    try {
      for (const name of ['a', 'b', 'c', 'd']) writeFileSync(join(quota, `${name}.txt`), `${name.toUpperCase()} Person works at ${name} Company.\n`);
      const tenant = await createTenant(t.app);
      await t.app.get(TenantsRepository).updateLimits(tenant.id, { dailyDocumentQuota: 1 });
      const quotaKey = (await createApiKey(t.app, tenant.id)).key;
      const { files, skipped } = await collectFiles([quota]);
      const result = await uploadAll(files, skipped, { url, apiKey: quotaKey, concurrency: 1, pollMs: 50, timeoutMs: 5_000 });
      expect(result.aborted).toEqual({ reason: 'quota', message: expect.stringMatching(/documents of the day are used up until the next UTC midnight \(HTTP 429: .+\)\. .*run again/) });
      expect(exitCodeOf(result)).toBe(1);
    } finally {
      rmSync(quota, { recursive: true, force: true });
    }
  });

  it('stops at once with a clear message for a wrong key (exit 2), uploading nothing', async () => {
    const { files, skipped } = await collectFiles([dir]);
    const result = await uploadAll(files, skipped, { url, apiKey: 'loci_not-a-real-key', concurrency: 2, pollMs: 50, timeoutMs: 5_000 });
    expect(result.aborted).toEqual({ reason: 'auth', message: expect.stringMatching(/refused the API key \(HTTP 401/) });
    expect(result.files.every((f) => f.outcome === undefined && f.phase === 'queued')).toBe(true);
    expect(exitCodeOf(result)).toBe(2);

    const { code, stderr } = await run([dir, '--tenant-key', 'loci_not-a-real-key', '--url', url]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/ingest: The server refused the API key \(HTTP 401: .+\)\. Check --tenant-key/);
  });

  it('says so when nothing answers at --url (exit 1)', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const { code, stderr } = await run([dir, '--tenant-key', key, '--url', `http://127.0.0.1:${port}`]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/Cannot reach http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
  });

  it(
    process.env.DATABASE_URL
      ? "--bulk begins the tenant graph's bulk load, uploads, finishes it and waits until the graph's own indexes are built"
      : '--bulk on the embedded store says why it cannot, uploading nothing (exit 1)',
    async () => {
      const tenant = await createTenant(t.app);
      const bulkKey = (await createApiKey(t.app, tenant.id)).key;
      const { code, stdout, stderr } = await run([dir, '--tenant-key', bulkKey, '--url', url, '--poll-ms', '50', '--bulk']);
      const state = (await t.http.get('/v1/bulk-load').set('X-API-Key', bulkKey).expect(200)).body.state;
      const documents = (await t.http.get('/v1/documents').set('X-API-Key', bulkKey).expect(200)).body.items;
      if (!process.env.DATABASE_URL) {
        expect(code).toBe(1);
        expect(stderr).toMatch(/ingest: bulk mode could not begin: HTTP 409: Bulk mode needs the PostgreSQL store/);
        expect(state).toBe('none');
        expect(documents).toEqual([]);
        return;
      }
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toMatch(/^bulk mode: the graph loads without upkeep of shared indexes/);
      expect(stdout).toMatch(/processed\s+2\n/);
      expect(stdout).toMatch(/bulk mode: the graph's own indexes are built\n$/);
      expect(state).toBe('indexed');
      expect(documents.map((d: { status: string }) => d.status)).toEqual(['processed', 'processed']);
    },
  );

  it('answers usage errors with exit 2 and the usage text', async () => {
    expect((await run([])).code).toBe(2);
    const noKey = await run([dir]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/API key is required/);
    expect((await run([dir, '--tenant-key', key, '--concurrency', '0'])).stderr).toMatch(/--concurrency must be a whole number/);
    expect((await run([dir, '--tenant-key', key, '--bogus'])).code).toBe(2);
    expect((await run([join(dir, 'missing'), '--tenant-key', key])).stderr).toMatch(/No such file or folder/);
    expect((await run([join(dir, 'tool.exe'), '--tenant-key', key])).stderr).toMatch(/nothing to upload/);
    const help = (await run(['--help'])).stdout;
    expect(help).toMatch(/^Usage: ingest /);
    expect(help).toMatch(/LOCI_API_KEY/);
    expect(help).toMatch(/LOCI_URL/);
  });
});
