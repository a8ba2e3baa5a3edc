import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Client } from 'pg';
import type { RetrievalMode } from '../../libs/retrieval/src/retrieval.types';
import { textPdf, sharedStreamPdf } from '../../libs/testing/src/pdf';
import { createRng } from '../prng';
import { BenchQuestion, Reservoir } from '../questions';
import { LatencySummary, summarize } from '../stats';
import { BenchDocument } from './ingest';
import { queryBody } from './types';

/**
 * `neighbours` (issue 34.5): what one tenant's load does to another's on one API process with
 * its in-process ingestion worker. Tenant B (pro tier, its tier's limits as created) asks
 * API-key questions at a steady pace and uploads one short document, first alone (quiet), then
 * while tenant A (a) has a backlog of short documents queued, (b) uploads heavy PDFs, (c) floods
 * questions at concurrency 16. Then A alone: its questions per second and documents per second
 * with its fairness limits on and with every limit off, in the same run.
 *
 * Tenants, keys and limits go through the API as an operator does it (POST /v1/admin/tenants,
 * PATCH /v1/admin/tenants/:id/limits, which bumps the limit rows' version); the only reads
 * straight from the database are the document timestamps and queue depths (polling them
 * through the API would spend B's own request rate).
 */

export interface NeighboursOptions {
  url: string;
  databaseUrl: string;
  /** Operator credentials the API was started with (LOCI_BOOTSTRAP_OPERATOR_*). */
  operator: { email: string; password: string };
  mode: RetrievalMode;
  /**
   * Whether the questions bring their keyword lists (default), as a client with its own model
   * does; without them the API reads each question's keywords itself (offline, on the request
   * thread for a short question).
   */
  ownKeywords: boolean;
  /** Seconds B is measured in each phase. */
  phaseS: number;
  /** B's questions a second (open loop: each is sent on schedule, answered or not). */
  bRate: number;
  /** Documents B uploads before the quiet phase (its graph) and their corpus. */
  bCorpus: BenchDocument[];
  /** A's backlog for phase (a), and A's graph afterwards (its questions in (c)). */
  aCorpus: BenchDocument[];
  /** Documents A uploads for each "A alone" ingestion cell. */
  aAloneDocuments: BenchDocument[];
  /** Uploads A keeps in flight in phases (a) and (b). */
  aUploadConcurrency: number;
  /** Connections of A's question flood in (c) and in the alone cells. */
  aQueryConcurrency: number;
  /** Pages of the text-heavy PDFs and characters drawn per page of the read-heavy ones. */
  pdf: { textPages: number; readPages: number; readLinesPerPage: number };
  /** Longest wait for a backlog to drain between phases before it is cancelled. */
  drainCapS: number;
  /** Longest wait for B's one document. */
  docTimeoutS: number;
  /** The phases run (all by default); without `a`, A's graph for `c` is uploaded and ingested unmeasured. */
  phases: ReadonlySet<NeighboursPhase>;
  log: (line: string) => void;
}

export const NEIGHBOURS_PHASES = ['quiet', 'a', 'b', 'c', 'alone'] as const;
export type NeighboursPhase = (typeof NEIGHBOURS_PHASES)[number];

export interface TenantHandle {
  id: string;
  name: string;
  tier: string;
  apiKey: string;
}

export interface BQuestions {
  sent: number;
  ok: number;
  refused_429: number;
  other_errors: number;
  latency_ms: LatencySummary;
}

export interface DocWait {
  /** From the upload's created_at to processed_at, both the database's clock. */
  wait_ms: number | null;
  /** What the bench saw: from sending the upload to seeing it processed (polled every 100 ms). */
  observed_ms: number | null;
  status: string;
  /** A's documents not yet processed when B's was uploaded, and its jobs running then. */
  a_pending_at_upload: number;
  a_running_at_upload: number;
}

export interface ANoise {
  kind: 'none' | 'backlog' | 'pdfs' | 'questions';
  /** Requests A sent during the measured window (and their statuses). */
  sent: number;
  admitted: number;
  refused_429: number;
  other_errors: number;
  /** Refusals and errors by status and error code. */
  statuses: Record<string, number>;
  detail: Record<string, unknown>;
}

export interface PhaseResult {
  phase: string;
  label: string;
  load_before: number[];
  load_after: number[];
  b: BQuestions;
  b_document: DocWait;
  a: ANoise;
  /** A's documents processed during B's measured window (its ingestion under contention). */
  a_processed_in_window: number;
  window_s: number;
  /**
   * Share of the machine's cores busy over B's window (all processes: the API, its threads,
   * PostgreSQL, this bench), from /proc/stat; null off Linux. What the quiet phase shows is B's own.
   */
  cores_busy: number | null;
}

export interface AloneCell {
  limits: 'on' | 'off';
  limits_set: Record<string, number | null>;
  questions: { concurrency: number; duration_s: number; ok: number; refused_429: number; other_errors: number; qps: number; latency_ms: LatencySummary };
  ingestion: { documents: number; chunks: number; elapsed_s: number; docs_per_s: number; chunks_per_s: number; failed: number };
}

export interface NeighboursOutcome {
  tenants: { a: Omit<TenantHandle, 'apiKey'>; b: Omit<TenantHandle, 'apiKey'> };
  b_graph: { documents: number; chunks: number; entities: number; edges: number; questions: number; seed_s: number };
  phases: PhaseResult[];
  drains: { after: string; drained: boolean; waited_s: number; cancelled_documents: number }[];
  alone: AloneCell[];
}

// ---------------------------------------------------------------- HTTP

class Api {
  constructor(readonly url: string) {}

  async json<T>(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON
    }
    return { status: response.status, body: parsed as T };
  }
}

async function login(api: Api, operator: { email: string; password: string }): Promise<string> {
  const response = await fetch(`${api.url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(operator) });
  const body = (await response.json()) as { access_token?: string };
  if (!response.ok || !body.access_token) throw new Error(`operator login answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body.access_token;
}

async function createTenant(api: Api, token: string, name: string, tier: 'free' | 'pro' | 'enterprise'): Promise<TenantHandle> {
  const created = await api.json<{ id: string }>('POST', '/v1/admin/tenants', token, { name, tier });
  if (created.status !== 201 && created.status !== 200) throw new Error(`POST /v1/admin/tenants answered ${created.status}: ${JSON.stringify(created.body).slice(0, 300)}`);
  const key = await api.json<{ key: string }>('POST', `/v1/admin/tenants/${created.body.id}/api-keys`, token, { name: `bench neighbours ${name}`, scopes: ['read', 'write'] });
  if (key.status !== 201 && key.status !== 200) throw new Error(`POST api-keys answered ${key.status}: ${JSON.stringify(key.body).slice(0, 300)}`);
  return { id: created.body.id, name, tier, apiKey: key.body.key };
}

async function setLimits(api: Api, token: string, tenantId: string, limits: Record<string, number | null>): Promise<void> {
  const patched = await api.json('PATCH', `/v1/admin/tenants/${tenantId}/limits`, token, limits);
  if (patched.status !== 200) throw new Error(`PATCH limits answered ${patched.status}: ${JSON.stringify(patched.body).slice(0, 300)}`);
}

interface Sent {
  status: number;
  ms: number;
  /** A refusal's error code (429s: rate_limit_exceeded, too_many_concurrent_queries, ...). */
  code?: string;
}

function errorCode(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

async function postJson(url: string, apiKey: string, path: string, body: string): Promise<Sent> {
  const t0 = performance.now();
  try {
    const response = await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body });
    const text = await response.text();
    const ms = performance.now() - t0;
    return { status: response.status, ms, code: response.ok ? undefined : errorCode(text) };
  } catch {
    return { status: 0, ms: performance.now() - t0 };
  }
}

async function postFile(url: string, apiKey: string, file: Buffer, name: string, type: string): Promise<Sent & { documentId?: string }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file)], { type }), name);
  const t0 = performance.now();
  try {
    const response = await fetch(`${url}/v1/documents`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form });
    const text = await response.text();
    const ms = performance.now() - t0;
    return { status: response.status, ms, code: response.ok ? undefined : errorCode(text), documentId: response.ok ? (JSON.parse(text) as { document_id: string }).document_id : undefined };
  } catch {
    return { status: 0, ms: performance.now() - t0 };
  }
}

const documentBody = (d: BenchDocument, suffix = '') => JSON.stringify({ name: d.name + suffix, text: d.text + suffix, document_date: d.documentDate.toISOString() });

// ---------------------------------------------------------------- database reads

async function withClient<T>(databaseUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

interface Depth {
  pending: number;
  running: number;
  processed: number;
  failed: number;
}

async function depth(client: Client, tenantId: string): Promise<Depth> {
  const { rows } = await client.query<{ pending: number; processed: number; failed: number; running: number }>(
    `SELECT count(*) FILTER (WHERE d.status IN ('pending', 'processing', 'deferred'))::int AS pending,
            count(*) FILTER (WHERE d.status = 'processed')::int AS processed,
            count(*) FILTER (WHERE d.status = 'failed')::int AS failed,
            (SELECT count(*)::int FROM jobs j WHERE j.tenant_id = $1 AND j.status = 'running') AS running
       FROM documents d WHERE d.tenant_id = $1`,
    [tenantId],
  );
  return rows[0];
}

async function waitUntilIngested(client: Client, tenantId: string, timeoutS: number, log: (line: string) => void): Promise<{ drained: boolean; waitedS: number }> {
  const t0 = Date.now();
  let reported = Date.now();
  for (;;) {
    const d = await depth(client, tenantId);
    if (d.pending === 0) return { drained: true, waitedS: (Date.now() - t0) / 1000 };
    if (Date.now() - t0 > timeoutS * 1000) return { drained: false, waitedS: (Date.now() - t0) / 1000 };
    if (Date.now() - reported > 15_000) {
      reported = Date.now();
      log(`    waiting: ${d.pending} pending, ${d.running} running, ${d.processed} processed`);
    }
    await sleep(250);
  }
}

// ---------------------------------------------------------------- B's measurements

/** B's questions, open loop at `rate` a second for `seconds`. */
async function bQuestions(url: string, b: TenantHandle, questions: BenchQuestion[], mode: RetrievalMode, rate: number, seconds: number): Promise<BQuestions> {
  const count = Math.max(1, Math.round(rate * seconds));
  const t0 = performance.now();
  const pending: Promise<Sent>[] = [];
  for (let i = 0; i < count; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(postJson(url, b.apiKey, '/v1/query', queryBody(questions[i % questions.length], mode)));
  }
  const sent = await Promise.all(pending);
  const ok = sent.filter((s) => s.status >= 200 && s.status < 300);
  return {
    sent: sent.length,
    ok: ok.length,
    refused_429: sent.filter((s) => s.status === 429).length,
    other_errors: sent.filter((s) => s.status !== 429 && (s.status < 200 || s.status >= 300)).length,
    latency_ms: summarize(ok.map((s) => s.ms)),
  };
}

let probeCount = 0;

/** B uploads one short document and waits for it to be processed. */
async function bDocument(url: string, databaseUrl: string, b: TenantHandle, aTenantId: string | null, timeoutS: number, phase: string): Promise<DocWait> {
  return withClient(databaseUrl, async (client) => {
    const a = aTenantId ? await depth(client, aTenantId) : { pending: 0, running: 0 };
    const n = ++probeCount;
    const text = `Probe ${n} of the ${phase} phase. Carol Diaz${n} joined Initech in Lisbon. Carol Diaz${n} reports to Dan Ortiz${n}, who runs the Lisbon office of Initech.`;
    const t0 = performance.now();
    const sent = await fetch(`${url}/v1/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${b.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `probe-${n}.txt`, text }),
    });
    const body = (await sent.json()) as { document_id?: string };
    if (sent.status !== 202 || !body.document_id) throw new Error(`B's probe upload answered ${sent.status}: ${JSON.stringify(body).slice(0, 300)}`);
    const id = body.document_id;
    for (;;) {
      const { rows } = await client.query<{ status: string; wait_ms: number | null }>(
        `SELECT status, (extract(epoch FROM processed_at - created_at) * 1000)::float8 AS wait_ms FROM documents WHERE tenant_id = $1 AND id = $2`,
        [b.id, id],
      );
      const row = rows[0];
      if (row && (row.status === 'processed' || row.status === 'failed')) {
        return {
          wait_ms: row.status === 'processed' ? round(row.wait_ms ?? Number.NaN) : null,
          observed_ms: round(performance.now() - t0),
          status: row.status,
          a_pending_at_upload: a.pending,
          a_running_at_upload: a.running,
        };
      }
      if (performance.now() - t0 > timeoutS * 1000) {
        return { wait_ms: null, observed_ms: null, status: `${row?.status ?? 'missing'} after ${timeoutS} s`, a_pending_at_upload: a.pending, a_running_at_upload: a.running };
      }
      await sleep(100);
    }
  });
}

// ---------------------------------------------------------------- A's noises

interface Noise {
  /** Resolves once the noise is established (a backlog queued, the first uploads sent). */
  start(): Promise<void>;
  /** Ends it and reports what A sent during the window (from start's end to stop). */
  stop(): Promise<ANoise>;
}

class Counter {
  sent = 0;
  admitted = 0;
  refused = 0;
  other = 0;
  statuses: Record<string, number> = {};
  latencies: number[] = [];
  add(s: Sent) {
    this.sent++;
    if (s.status >= 200 && s.status < 300) {
      this.admitted++;
      this.latencies.push(s.ms);
      return;
    }
    if (s.status === 429) this.refused++;
    else this.other++;
    const key = `${s.status}${s.code ? ` ${s.code}` : ''}`;
    this.statuses[key] = (this.statuses[key] ?? 0) + 1;
  }
  report(kind: ANoise['kind'], detail: Record<string, unknown>): ANoise {
    return { kind, sent: this.sent, admitted: this.admitted, refused_429: this.refused, other_errors: this.other, statuses: this.statuses, detail: { ...detail, latency_ms: summarize(this.latencies) } };
  }
}

/** Runs `loops` loops of `step` until stopped; each loop's result counted. */
function loops(n: number, step: (loop: number, i: number) => Promise<Sent>, counter: () => Counter) {
  let stopping = false;
  const running = Array.from({ length: n }, async (_, loop) => {
    for (let i = 0; !stopping; i++) counter().add(await step(loop, i));
  });
  return {
    stop: async () => {
      stopping = true;
      await Promise.all(running);
    },
  };
}

const quiet = (): Noise => ({ start: async () => undefined, stop: async () => new Counter().report('none', {}) });

/** (a): A queues its corpus (POST /v1/documents, `concurrency` at a time); measured once all are queued. */
function backlog(url: string, a: TenantHandle, corpus: BenchDocument[], concurrency: number, log: (line: string) => void): Noise {
  const uploads = new Counter();
  let uploadS = 0;
  return {
    async start() {
      const t0 = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < corpus.length) uploads.add(await postJson(url, a.apiKey, '/v1/documents', documentBody(corpus[next++])));
        }),
      );
      uploadS = (performance.now() - t0) / 1000;
      log(`    A queued ${uploads.admitted} of ${corpus.length} documents in ${round(uploadS)} s (${uploads.refused} refused 429, ${uploads.other} other)`);
      if (uploads.refused > 0 || uploads.other > 0) log(`    A's upload statuses: ${JSON.stringify(uploads.statuses)}`);
    },
    async stop() {
      return uploads.report('backlog', { documents: corpus.length, upload_s: round(uploadS), note: 'the uploads were sent before the window; the window is B against the queued backlog' });
    },
  };
}

/** (b): A uploads heavy PDFs, `concurrency` at a time, alternating text-heavy and read-heavy ones, for the window. */
function heavyPdfs(url: string, a: TenantHandle, corpus: BenchDocument[], concurrency: number, pdf: NeighboursOptions['pdf']): Noise {
  const counter = new Counter();
  let run: { stop(): Promise<void> } | undefined;
  const kinds = { text: 0, read: 0 };
  let serial = 0;
  const lines = corpus.flatMap((d) => d.text.split(/(?<=\.)\s+/)).filter((l) => l.length > 0);
  const textPdfOf = (n: number) => {
    // ~45 lines of corpus sentences a page (Helvetica, no wrapping: long sentences run off the edge but are read).
    const pages: string[][] = [];
    for (let p = 0; p < pdf.textPages; p++) {
      const page = [`Report ${n}, page ${p + 1}.`];
      for (let l = 0; l < 45; l++) page.push(lines[(n * 997 + p * 45 + l) % lines.length].replace(/[^\x20-\x7e]/g, ' '));
      pages.push(page);
    }
    return textPdf(pages);
  };
  return {
    async start() {
      run = loops(
        concurrency,
        async () => {
          const n = ++serial;
          if (n % 2 === 1) {
            kinds.text++;
            return postFile(url, a.apiKey, textPdfOf(n), `report-${n}.pdf`, 'application/pdf');
          }
          kinds.read++;
          // A different first page each time, so no upload is the same content as an earlier one.
          const file = Buffer.concat([sharedStreamPdf(pdf.readPages, pdf.readLinesPerPage + n, { slowOnly: true })]);
          return postFile(url, a.apiKey, file, `scan-${n}.pdf`, 'application/pdf');
        },
        () => counter,
      );
      await sleep(2_000); // the first uploads are being read
    },
    async stop() {
      await run?.stop();
      return counter.report('pdfs', {
        concurrency,
        text_pdfs: kinds.text,
        read_heavy_pdfs: kinds.read,
        text_pdf: `${pdf.textPages} pages of ~45 corpus sentences`,
        read_heavy_pdf: `${pdf.readPages} pages sharing one stream of ${pdf.readLinesPerPage}+ runs of 25 characters drawn off the page (seconds of pdf.js CPU, little text)`,
      });
    },
  };
}

/** (c): A floods POST /v1/query (context only) at `concurrency` for the window, with its own limits. */
function questionFlood(url: string, a: TenantHandle, questions: BenchQuestion[], mode: RetrievalMode, concurrency: number): Noise {
  const counter = new Counter();
  let run: { stop(): Promise<void> } | undefined;
  let t0 = 0;
  let elapsed = 0;
  return {
    async start() {
      t0 = performance.now();
      run = loops(concurrency, (loop, i) => postJson(url, a.apiKey, '/v1/query', queryBody(questions[(loop * 131 + i) % questions.length], mode)), () => counter);
      await sleep(1_000);
    },
    async stop() {
      await run?.stop();
      elapsed = (performance.now() - t0) / 1000;
      return counter.report('questions', { concurrency, mode, elapsed_s: round(elapsed), admitted_per_s: round(counter.admitted / elapsed), sent_per_s: round(counter.sent / elapsed) });
    },
  };
}

// ---------------------------------------------------------------- the run

export async function runNeighboursBench(options: NeighboursOptions): Promise<NeighboursOutcome> {
  const { log } = options;
  const api = new Api(options.url);
  const token = await login(api, options.operator);
  const stamp = Date.now().toString(36);
  const b = await createTenant(api, token, `bench-neighbours-b-${stamp}`, 'pro');
  const a = await createTenant(api, token, `bench-neighbours-a-${stamp}`, 'pro');
  log(`tenants: B ${b.id} (pro, its tier's limits), A ${a.id} (pro)`);

  // A's limits for (a) and (b): its request rate and ingestion quotas raised so its own quotas do
  // not refuse its uploads; its running-jobs cap (pro: 4) stays, as the fair queue's own control.
  const aUploading = { requests_per_minute: null, request_burst: null, daily_document_quota: null, daily_ingest_mb: null, max_stored_mb: null };
  await setLimits(api, token, a.id, aUploading);

  return withClient(options.databaseUrl, async (db) => {
    // B's graph: its corpus uploaded and ingested before anything is measured.
    const seedT0 = performance.now();
    for (const document of options.bCorpus) {
      const sent = await postJson(options.url, b.apiKey, '/v1/documents', documentBody(document));
      if (sent.status !== 202) throw new Error(`B's seed upload answered ${sent.status}`);
    }
    const seeded = await waitUntilIngested(db, b.id, 600, log);
    if (!seeded.drained) throw new Error("B's corpus was not ingested within 600 s");
    const seedS = (performance.now() - seedT0) / 1000;
    const bQuestionsList = asked(questionsOf(options.bCorpus, 1, 300), options.ownKeywords);
    const graph = (await db.query<{ documents: number; chunks: number; entities: number; edges: number }>(
      `SELECT (SELECT count(*)::int FROM documents WHERE tenant_id = $1) AS documents, (SELECT count(*)::int FROM chunks WHERE tenant_id = $1) AS chunks,
              (SELECT count(*)::int FROM entities WHERE tenant_id = $1) AS entities, (SELECT count(*)::int FROM edges WHERE tenant_id = $1) AS edges`,
      [b.id],
    )).rows[0];
    log(`B's graph: ${graph.documents} documents, ${graph.chunks} chunks, ${graph.entities} entities, ${graph.edges} edges in ${round(seedS)} s; ${bQuestionsList.length} questions`);
    // Warm-up: both CPU threads and the question path, not measured.
    await bQuestions(options.url, b, bQuestionsList, options.mode, options.bRate, Math.min(5, options.phaseS));

    const phases: PhaseResult[] = [];
    const drains: NeighboursOutcome['drains'] = [];
    const phase = async (name: string, label: string, noise: Noise, aId: string | null) => {
      log(`phase ${name}: ${label}`);
      const loadBefore = loadavg().map((x) => round(x));
      await noise.start();
      const aBefore = await depth(db, a.id);
      const cpuBefore = cpuTimes();
      const t0 = performance.now();
      // B's one document goes in as the window opens; its questions run through the window.
      const [bq, doc] = await Promise.all([
        bQuestions(options.url, b, bQuestionsList, options.mode, options.bRate, options.phaseS),
        bDocument(options.url, options.databaseUrl, b, aId, options.docTimeoutS, name),
      ]);
      const windowS = (performance.now() - t0) / 1000;
      const coresBusy = busyShare(cpuBefore, cpuTimes());
      const aNoise = await noise.stop();
      const aAfter = await depth(db, a.id);
      const result: PhaseResult = {
        phase: name,
        label,
        load_before: loadBefore,
        load_after: loadavg().map((x) => round(x)),
        b: bq,
        b_document: doc,
        a: aNoise,
        a_processed_in_window: aAfter.processed - aBefore.processed,
        window_s: round(windowS),
        cores_busy: coresBusy,
      };
      phases.push(result);
      log(
        `    B: ${bq.ok}/${bq.sent} answered (429: ${bq.refused_429}, other: ${bq.other_errors}), p50 ${bq.latency_ms.p50} ms, p95 ${bq.latency_ms.p95} ms; ` +
          `B's document ${doc.status} in ${doc.wait_ms ?? '-'} ms (A pending ${doc.a_pending_at_upload}, running ${doc.a_running_at_upload}); ` +
          `A: ${aNoise.admitted} admitted, ${aNoise.refused_429} refused 429, ${aNoise.other_errors} other; A processed ${result.a_processed_in_window} documents in the window; cores busy ${coresBusy === null ? '-' : `${Math.round(coresBusy * 100)}%`}; load ${result.load_after.join(' ')}`,
      );
      return result;
    };
    const drain = async (after: string) => {
      const waited = await waitUntilIngested(db, a.id, options.drainCapS, log);
      let cancelled = 0;
      if (!waited.drained) {
        // Past the cap: A's remaining documents are deleted through the API, so the next phase starts clean.
        const { rows } = await db.query<{ id: string }>(`SELECT id::text FROM documents WHERE tenant_id = $1 AND status IN ('pending', 'deferred')`, [a.id]);
        for (const row of rows) {
          const response = await fetch(`${options.url}/v1/documents/${row.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${a.apiKey}` } });
          if (response.status === 204) cancelled++;
        }
        await waitUntilIngested(db, a.id, 120, log);
      }
      drains.push({ after, drained: waited.drained, waited_s: round(waited.waitedS), cancelled_documents: cancelled });
      log(`    A's queue after ${after}: ${waited.drained ? 'drained' : `not drained after ${options.drainCapS} s, ${cancelled} pending documents deleted`} (${round(waited.waitedS)} s)`);
    };

    const runs = (name: NeighboursPhase) => options.phases.has(name);
    if (runs('quiet')) await phase('quiet', 'B alone', quiet(), null);
    if (runs('a')) {
      await phase('a', `A has ${options.aCorpus.length} documents queued`, backlog(options.url, a, options.aCorpus, options.aUploadConcurrency, log), a.id);
      await drain('a');
      // B alone again, A's graph now in the same tables: what (b) and (c) are also measured
      // against, to tell A's load from A's data (a reference, not a target).
      if (runs('quiet') && (runs('b') || runs('c'))) await phase('settled', "B alone again, A's backlog ingested", quiet(), null);
    } else if (runs('c') || runs('alone')) {
      // A's graph for its questions, uploaded and ingested outside any window.
      await backlog(options.url, a, options.aCorpus, options.aUploadConcurrency, log).start();
      await waitUntilIngested(db, a.id, 1_800, log);
    }
    if (runs('b')) {
      await phase('b', 'A uploads heavy PDFs', heavyPdfs(options.url, a, options.aCorpus, options.aUploadConcurrency, options.pdf), a.id);
      await drain('b');
    }
    // (c): A's own tier's limits back (pro: 600 a minute, burst 100, 10 questions at once).
    await setLimits(api, token, a.id, { requests_per_minute: 600, request_burst: 100, max_concurrent_queries: 10 });
    const aQuestions = asked(questionsOf(options.aCorpus, 2, 500), options.ownKeywords);
    if (runs('c')) {
      await phase('c', `A floods questions at concurrency ${options.aQueryConcurrency} (its pro limits)`, questionFlood(options.url, a, aQuestions, options.mode, options.aQueryConcurrency), a.id);
    }

    // A alone: its questions a second and documents a second, fairness limits off, then on, twice.
    const alone = runs('alone')
      ? await aloneCells(options, db, a, aQuestions, [['off', 1], ['on', 1], ['off', 2], ['on', 2]], (limits) => setLimits(api, token, a.id, limits))
      : [];
    return {
      tenants: { a: { id: a.id, name: a.name, tier: a.tier }, b: { id: b.id, name: b.name, tier: b.tier } },
      b_graph: { ...graph, questions: bQuestionsList.length, seed_s: round(seedS) },
      phases,
      drains,
      alone,
    };
  });
}

const ALONE_SETTINGS: Record<'on' | 'off', Record<string, number | null>> = {
  // The pro tier's fairness controls (running jobs 4, 10 questions at once); the request rate,
  // a paid quota that caps by design, lifted (its effect is phase c's).
  on: { max_running_jobs: 4, max_concurrent_queries: 10, requests_per_minute: null, request_burst: null },
  off: { max_running_jobs: null, max_concurrent_queries: null, requests_per_minute: null, request_burst: null, daily_query_quota: null },
};

/**
 * A alone, pass by pass: its questions at `aQueryConcurrency` for half a phase, then
 * `aAloneDocuments` uploaded and waited for. `setLimits` null: the limits are left as they are
 * (an enterprise tenant's: none), for a build whose limits PATCH knows fewer fields.
 */
async function aloneCells(
  options: NeighboursOptions,
  db: Client,
  a: TenantHandle,
  aQuestions: BenchQuestion[],
  passes: ReadonlyArray<readonly ['on' | 'off', number]>,
  setLimits: ((limits: Record<string, number | null>) => Promise<void>) | null,
): Promise<AloneCell[]> {
  const { log } = options;
  const cells: AloneCell[] = [];
  for (const [limits, pass] of passes) {
    if (setLimits) await setLimits(ALONE_SETTINGS[limits]);
    log(`A alone, limits ${limits} (pass ${pass}: ${setLimits ? JSON.stringify(ALONE_SETTINGS[limits]) : 'enterprise tier, none set'})`);
    const flood = questionFlood(options.url, a, aQuestions, options.mode, options.aQueryConcurrency);
    await flood.start();
    await sleep(options.phaseS * 500);
    const q = await flood.stop();
    const elapsed = Number(q.detail.elapsed_s);
    const docs = options.aAloneDocuments;
    const suffix = ` (alone ${limits} ${pass})`;
    const startedAt = (await db.query<{ now: Date }>('SELECT now()')).rows[0].now;
    let next = 0;
    await Promise.all(
      Array.from({ length: options.aUploadConcurrency }, async () => {
        while (next < docs.length) {
          const sent = await postJson(options.url, a.apiKey, '/v1/documents', documentBody(docs[next++], suffix));
          if (sent.status !== 202) throw new Error(`A's upload answered ${sent.status}`);
        }
      }),
    );
    await waitUntilIngested(db, a.id, 600, log);
    const { rows } = await db.query<{ n: number; failed: number; chunks: number; last: Date }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'failed')::int AS failed, coalesce(sum(chunks_done), 0)::int AS chunks, max(processed_at) AS last
         FROM documents WHERE tenant_id = $1 AND created_at >= $2`,
      [a.id, startedAt],
    );
    const elapsedS = (rows[0].last.getTime() - startedAt.getTime()) / 1000;
    const cell: AloneCell = {
      limits,
      limits_set: setLimits ? ALONE_SETTINGS[limits] : {},
      questions: {
        concurrency: options.aQueryConcurrency,
        duration_s: elapsed,
        ok: q.admitted,
        refused_429: q.refused_429,
        other_errors: q.other_errors,
        qps: round(q.admitted / elapsed),
        latency_ms: q.detail.latency_ms as LatencySummary,
      },
      ingestion: {
        documents: rows[0].n,
        chunks: rows[0].chunks,
        elapsed_s: round(elapsedS),
        docs_per_s: round(rows[0].n / elapsedS),
        chunks_per_s: round(rows[0].chunks / elapsedS),
        failed: rows[0].failed,
      },
    };
    cells.push(cell);
    log(
      `    A alone, limits ${limits}: ${cell.questions.qps} questions/s (p50 ${cell.questions.latency_ms.p50}, p95 ${cell.questions.latency_ms.p95} ms, ${cell.questions.refused_429} refused); ` +
        `${cell.ingestion.documents} documents in ${cell.ingestion.elapsed_s} s = ${cell.ingestion.docs_per_s} docs/s (${cell.ingestion.chunks_per_s} chunks/s)`,
    );
  }
  return cells;
}

export interface AloneOnlyOutcome {
  tenant: Omit<TenantHandle, 'apiKey'>;
  a_graph: { documents: number; seed_s: number; questions: number };
  alone: AloneCell[];
}

/**
 * `--alone-only`: A alone on a graph of its own corpus, against whichever build the API is (an
 * older one too: `--api-main`), so a build before issue 34 gives "today's" numbers on the same
 * machine minutes apart. A is an enterprise tenant (no limit) and nothing is PATCHed.
 */
export async function runAloneOnly(options: NeighboursOptions, passes: number): Promise<AloneOnlyOutcome> {
  const api = new Api(options.url);
  const token = await login(api, options.operator);
  const a = await createTenant(api, token, `bench-neighbours-alone-${Date.now().toString(36)}`, 'enterprise');
  return withClient(options.databaseUrl, async (db) => {
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: options.aUploadConcurrency }, async () => {
        while (next < options.aCorpus.length) {
          const sent = await postJson(options.url, a.apiKey, '/v1/documents', documentBody(options.aCorpus[next++]));
          if (sent.status !== 202) throw new Error(`A's upload answered ${sent.status}`);
        }
      }),
    );
    const seeded = await waitUntilIngested(db, a.id, 900, options.log);
    if (!seeded.drained) throw new Error("A's corpus was not ingested within 900 s");
    const seedS = (performance.now() - t0) / 1000;
    options.log(`A's graph: ${options.aCorpus.length} documents in ${round(seedS)} s`);
    const aQuestions = questionsOf(options.aCorpus, 2, 500);
    // Warm-up, not measured.
    const warm = questionFlood(options.url, a, aQuestions, options.mode, options.aQueryConcurrency);
    await warm.start();
    await sleep(3_000);
    await warm.stop();
    const cells = await aloneCells(options, db, a, aQuestions, Array.from({ length: passes }, (_, i) => ['off', i + 1] as const), null);
    return { tenant: { id: a.id, name: a.name, tier: a.tier }, a_graph: { documents: options.aCorpus.length, seed_s: round(seedS), questions: aQuestions.length }, alone: cells };
  });
}

/** The questions as sent: with their keyword lists, or with none (queryBody leaves empty lists out). */
function asked(questions: BenchQuestion[], ownKeywords: boolean): BenchQuestion[] {
  return ownKeywords ? questions : questions.map((question) => ({ ...question, hl_keywords: [], ll_keywords: [] }));
}

/** Questions about the corpus's live facts, as query-ingested writes them. */
export function questionsOf(corpus: BenchDocument[], seed: number, size: number): BenchQuestion[] {
  const reservoir = new Reservoir<BenchQuestion>(size, createRng(seed, 'neighbours-questions'));
  for (const document of corpus) {
    for (const fact of document.facts) {
      if (fact.state === 'superseded') continue;
      reservoir.offer({
        query: fact.template.question(fact.source.name),
        hl_keywords: [...fact.template.keywords],
        ll_keywords: [fact.source.name],
        answer: { edge_id: 0, document_id: 0, relation: fact.template.relation, source: fact.source.name, target: fact.target.name, ended: fact.invalidAt !== null },
      });
    }
  }
  if (reservoir.items.length === 0) throw new Error('the corpus states no live fact to ask about');
  return reservoir.items;
}

// ---------------------------------------------------------------- the table

export interface Targets {
  /** B's p95 in every phase within this many times its quiet p95. */
  p95Ratio: number;
  /** B's one document processed within this many ms behind A's backlog. */
  docWaitMs: number;
  /** A alone with its limits on within this fraction of its throughput with them off. */
  aloneLoss: number;
}

export const TARGETS: Targets = { p95Ratio: 3, docWaitMs: 15_000, aloneLoss: 0.1 };

/** The machine's CPU time so far, busy and all, in clock ticks (Linux /proc/stat); null elsewhere. */
function cpuTimes(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
    const total = fields.slice(0, 8).reduce((sum, x) => sum + x, 0);
    return { busy: total - fields[3] - fields[4], total };
  } catch {
    return null;
  }
}

function busyShare(before: ReturnType<typeof cpuTimes>, after: ReturnType<typeof cpuTimes>): number | null {
  if (!before || !after || after.total === before.total) return null;
  return round((after.busy - before.busy) / (after.total - before.total));
}

export function neighboursTable(outcome: NeighboursOutcome, targets = TARGETS): string[] {
  const quietP95 = outcome.phases.find((p) => p.phase === 'quiet')?.b.latency_ms.p95 ?? Number.NaN;
  const settledP95 = outcome.phases.find((p) => p.phase === 'settled')?.b.latency_ms.p95;
  const lines = [
    '| phase | B asked (ok / 429) | B p50 ms | B p95 ms | p95 / quiet p95 | B document wait (A pending at upload) | A admitted / 429 | cores busy | target | met? |',
    '| --- | --- | ---: | ---: | ---: | --- | --- | ---: | --- | --- |',
  ];
  for (const p of outcome.phases) {
    const ratio = p.b.latency_ms.p95 / quietP95;
    const docOk = p.b_document.wait_ms !== null && p.b_document.wait_ms <= targets.docWaitMs;
    const reference = p.phase === 'quiet' || p.phase === 'settled';
    const latOk = reference || ratio <= targets.p95Ratio;
    const bOk = p.b.refused_429 === 0 && p.b.other_errors === 0;
    const met = p.phase === 'quiet' ? '(baseline)' : p.phase === 'settled' ? '(reference)' : latOk && docOk && bOk ? 'yes' : `no${latOk ? '' : ' (p95)'}${docOk ? '' : ' (document)'}${bOk ? '' : ' (B refused)'}`;
    const aCol = p.a.kind === 'none' ? '–' : p.a.kind === 'backlog' ? `${p.a.admitted} queued / ${p.a.refused_429}` : `${p.a.admitted} / ${p.a.refused_429}${p.a.other_errors ? ` (+${p.a.other_errors} other)` : ''}`;
    lines.push(
      `| ${p.phase}: ${p.label} | ${p.b.ok} / ${p.b.refused_429} | ${p.b.latency_ms.p50} | ${p.b.latency_ms.p95} | ${p.phase === 'quiet' ? '1.00' : round(ratio).toFixed(2)}${settledP95 && !reference ? ` (${round(p.b.latency_ms.p95 / settledP95).toFixed(2)} of settled)` : ''} | ` +
        `${p.b_document.wait_ms === null ? p.b_document.status : `${round(p.b_document.wait_ms / 1000)} s`} (${p.b_document.a_pending_at_upload}) | ${aCol} | ` +
        `${p.cores_busy == null ? '–' : `${Math.round(p.cores_busy * 100)}%`} | ` +
        `p95 ≤ ${targets.p95Ratio}× quiet, document ≤ ${targets.docWaitMs / 1000} s | ${met} |`,
    );
  }
  return lines;
}

export function aloneTable(outcome: Pick<NeighboursOutcome, 'alone'>, targets = TARGETS): string[] {
  const lines = [
    '| A alone | questions/s (c16) | p50 ms | p95 ms | 429 | documents/s | chunks/s |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const c of outcome.alone) {
    lines.push(`| limits ${c.limits} | ${c.questions.qps} | ${c.questions.latency_ms.p50} | ${c.questions.latency_ms.p95} | ${c.questions.refused_429} | ${c.ingestion.docs_per_s} | ${c.ingestion.chunks_per_s} |`);
  }
  const mean = (limits: 'on' | 'off', pick: (c: AloneCell) => number) => {
    const cells = outcome.alone.filter((c) => c.limits === limits);
    return cells.reduce((s, c) => s + pick(c), 0) / Math.max(1, cells.length);
  };
  if (!outcome.alone.some((c) => c.limits === 'on')) {
    lines.push('');
    lines.push(`A alone (limits off), means of the passes: ${round(mean('off', (c) => c.questions.qps))} questions/s, ${round(mean('off', (c) => c.ingestion.docs_per_s))} documents/s`);
    return lines;
  }
  const q = mean('on', (c) => c.questions.qps) / mean('off', (c) => c.questions.qps);
  const d = mean('on', (c) => c.ingestion.docs_per_s) / mean('off', (c) => c.ingestion.docs_per_s);
  const ok = (x: number) => (x >= 1 - targets.aloneLoss ? 'met' : 'not met');
  lines.push('');
  lines.push(
    `A alone, limits on against off (means of the passes): questions ${round(q * 100)}% (${ok(q)}), documents ${round(d * 100)}% (${ok(d)}); target ≥ ${100 - targets.aloneLoss * 100}%`,
  );
  return lines;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (x: number) => Math.round(x * 100) / 100;
