import type { AddressInfo } from 'node:net';
import { createTenantWithPeople, textPdf } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Issue 13.1: no request stalls the API. While the API process (the embedded default's
 * in-process worker) ingests a megabyte without spaces and a PDF of many pages, remembers a
 * directory naming over a thousand people per chunk, and answers 60 KiB questions with the
 * offline stages (keywords, answer),
 * /healthz keeps answering. The bound is generous on purpose (the freezes it guards against
 * lasted seconds to minutes); the inputs are the costly shapes, not the costly sizes.
 */
const PROBE_BOUND_MS = 1000;
const PROBE_EVERY_MS = 100;
/** The largest chunks the settings allow: the most work per chunk for every per-chunk step. */
const CHUNK_TOKENS = '8000';

/** Deterministic letters and digits without a space: distinct pre-tokens, as in a base64 blob. */
function unspaced(length: number, seed: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let state = seed;
  const out: string[] = [];
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    out.push(alphabet[(state >>> 16) % alphabet.length]);
  }
  return out.join('');
}

/** Distinct made-up full names ("Kalomi Rasute"), as in a member directory. */
function person(i: number): string {
  const syllables = ['ka', 'lo', 'mi', 'ra', 'su', 'te', 'vo', 'ne', 'di', 'ba', 'po', 'zu', 'fe', 'gi', 'ha', 'jo'];
  const word = (n: number) => {
    let w = '';
    for (let k = 0; k < 3; k++, n >>= 4) w += syllables[n % 16];
    return w[0].toUpperCase() + w.slice(1);
  };
  return `${word(i * 7 + 3)} ${word(i * 13 + 5)}`;
}

function pdfOfPages(count: number): Buffer {
  const people = ['Alice Johnson', 'Bob Smith', 'Carol White', 'Dan Brown'];
  const pages = Array.from({ length: count }, (_, p) =>
    Array.from({ length: 12 }, (_, l) => `${people[(p + l) % 4]} met client ${p * 12 + l} in Berlin on page ${p + 1}.`),
  );
  return textPdf(pages);
}

describe('CPU-heavy work runs off the request event loop', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_RUN_WORKER: 'true', LOCI_CHUNK_TOKENS: CHUNK_TOKENS });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  it(
    'keeps /healthz answering while hostile texts are ingested and long questions answered',
    async () => {
      const { apiKey } = await createTenantWithPeople(t.app);
      const auth = { authorization: `Bearer ${apiKey.key}` };
      const json = { ...auth, 'content-type': 'application/json' };
      // Inputs are built before probing starts: this test shares the event loop with the API.
      const blob = unspaced(1 << 20, 1);
      const pdf = pdfOfPages(60);
      expect(pdf.length).toBeGreaterThan(40_000);
      // ~2,600 distinct names in 8000-token chunks: resolving one chunk's names compares every pair.
      const directory = Array.from({ length: 2600 }, (_, i) => person(i)).join(', ') + '.';
      const question = `Where does ${Array.from({ length: 3000 }, (_, i) => person(i % 50)).join(' and ')} work?`.slice(0, 60 * 1024);
      const forms = [
        [Buffer.from(blob), 'blob.txt', 'text/plain'],
        [pdf, 'report.pdf', 'application/pdf'],
      ] as const;
      const bodies = forms.map(([file, name, type]) => {
        const form = new FormData();
        form.append('file', new Blob([file], { type }), name);
        return form;
      });
      const remember = JSON.stringify({ user_id: 'hostile', text: directory });
      const gbQuery = JSON.stringify({ user_id: 'hostile', query: question });
      const v1Query = JSON.stringify({ query: question, mode: 'hybrid' });

      let probing = true;
      const probes: Array<{ at: number; ms: number }> = [];
      const started = performance.now();
      const prober = (async () => {
        while (probing) {
          const at = performance.now();
          // A frozen event loop shows as a probe taking seconds; the abort only keeps a dead server from hanging the test.
          const response = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(60_000) });
          probes.push({ at: Math.round(at - started), ms: Math.round(performance.now() - at) });
          expect(response.status).toBe(200);
          // Read to the end: an unread body keeps its socket open (and the jest worker alive) until garbage-collected.
          await response.arrayBuffer();
          await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
        }
      })();

      const uploads = await Promise.all(bodies.map((body) => fetch(`${base}/v1/documents`, { method: 'POST', headers: auth, body })));
      expect(uploads.map((r) => r.status)).toEqual([202, 202]);
      const documentIds = await Promise.all(uploads.map(async (r) => ((await r.json()) as { document_id: string }).document_id));
      // Remember runs inline (its names resolved, and its reply built, in the request); the questions ask its dataset.
      const remembered = await fetch(`${base}/v1/gb/remember`, { method: 'POST', headers: json, body: remember });
      expect(remembered.status).toBe(200);
      await remembered.arrayBuffer();
      const answers = await Promise.all([
        fetch(`${base}/v1/gb/query`, { method: 'POST', headers: json, body: gbQuery }),
        fetch(`${base}/v1/query`, { method: 'POST', headers: json, body: v1Query }),
      ]);
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      await Promise.all(answers.map((r) => r.arrayBuffer()));

      let statuses: string[];
      for (;;) {
        statuses = await Promise.all(
          documentIds.map(async (id) => ((await (await fetch(`${base}/v1/documents/${id}`, { headers: auth })).json()) as { status: string }).status),
        );
        if (statuses.every((s) => s === 'processed' || s === 'failed')) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      probing = false;
      await prober;

      expect(statuses).toEqual(['processed', 'processed']);
      expect(probes.length).toBeGreaterThan(10);
      const slow = probes.filter((p) => p.ms >= PROBE_BOUND_MS);
      // The probes that waited, with when (ms after the first), to find what held the loop.
      expect(slow).toEqual([]);
    },
    5 * 60_000,
  );
});
