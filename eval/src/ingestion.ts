import pLimit from 'p-limit';
import { Passage, passageText } from './corpus';
import { LociClient } from './loci-client';
import { EVAL_OPERATOR } from './loci-server';
import { IngestionSummary, newPassword } from './store-cache';

export interface ProvisionedTenant {
  tenantId: string;
  user: { email: string; password: string };
}

/** A tenant without limits and its dashboard user, created by the bootstrap operator through the admin API. */
export async function provisionTenant(server: LociClient): Promise<ProvisionedTenant> {
  const operator = server.as({ token: await server.login(EVAL_OPERATOR.email, EVAL_OPERATOR.password) });
  const tenant = await operator.createTenant('eval-hotpotqa');
  await operator.unlimit(tenant.id);
  const user = { email: 'eval-user@loci.invalid', password: newPassword() };
  await operator.createUser(tenant.id, user.email, user.password);
  return { tenantId: tenant.id, user };
}

/** A fresh API key of the tenant (keys are shown once, so every run makes its own). */
export async function apiKeyFor(server: LociClient, tenantId: string): Promise<string> {
  const operator = server.as({ token: await server.login(EVAL_OPERATOR.email, EVAL_OPERATOR.password) });
  return operator.createApiKey(tenantId, `eval-${new Date().toISOString()}`);
}

export interface IngestOptions {
  log: (line: string) => void;
  /** How often the documents are polled. */
  pollMs?: number;
  timeoutMs?: number;
}

/**
 * Uploads each passage as one document named by its title (POST /v1/documents, as a tenant's
 * program would) and waits until the in-process worker has processed or failed every one.
 */
export function ingestPassages(client: LociClient, passages: Passage[], options: IngestOptions): Promise<IngestionSummary> {
  return ingestDocuments(client, passages.map((p) => ({ name: p.title, text: passageText(p), date: p.date })), options);
}

/** Uploads each document (POST /v1/documents) and waits until the worker has processed or failed every one. */
export async function ingestDocuments(client: LociClient, passages: Array<{ name: string; text: string; date?: string }>, options: IngestOptions): Promise<IngestionSummary> {
  const started = Date.now();
  // A few uploads in flight: uploading is cheap next to ingesting, and order does not matter.
  const limit = pLimit(4);
  let uploaded = 0;
  let reported = started;
  const upload = async (p: { name: string; text: string; date?: string }) => {
    await client.uploadDocument(p.name, p.text, p.date);
    uploaded++;
    // The worker ingests while uploads go on and the API answers them slowly meanwhile.
    if (Date.now() - reported > 60_000) {
      reported = Date.now();
      options.log(`uploading: ${uploaded}/${passages.length} documents after ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
  };
  await Promise.all(passages.map((p) => limit(() => upload(p))));
  options.log(`uploaded ${passages.length} documents in ${((Date.now() - started) / 1000).toFixed(1)} s; ingesting`);
  const deadline = started + (options.timeoutMs ?? 6 * 60 * 60_000);
  let lastLogged = 0;
  for (;;) {
    const documents = await client.documents();
    const done = documents.filter((d) => d.status === 'processed' || d.status === 'failed');
    if (done.length >= passages.length) return summarize(documents, started);
    if (Date.now() > deadline) throw new Error(`ingestion: ${done.length} of ${passages.length} documents done after ${(Date.now() - started) / 1000} s`);
    if (Date.now() - lastLogged > 30_000) {
      lastLogged = Date.now();
      const elapsed = (Date.now() - started) / 1000;
      options.log(`ingesting: ${done.length}/${passages.length} documents after ${elapsed.toFixed(0)} s (${(done.length / elapsed).toFixed(2)}/s)`);
    }
    await new Promise((r) => setTimeout(r, options.pollMs ?? 1000));
  }
}

function summarize(documents: Awaited<ReturnType<LociClient['documents']>>, started: number): IngestionSummary {
  const processed = documents.filter((d) => d.status === 'processed');
  const failed = documents.filter((d) => d.status === 'failed');
  const finishedAt = processed.map((d) => Date.parse(d.processed_at ?? '')).filter(Number.isFinite);
  const finished = finishedAt.length > 0 ? Math.max(...finishedAt) : Date.now();
  const elapsedS = Math.max(0.001, (finished - started) / 1000);
  const sum = (pick: (d: (typeof documents)[number]) => number) => documents.reduce((n, d) => n + pick(d), 0);
  return {
    documents: documents.length,
    processed: processed.length,
    failed: failed.length,
    chunks: sum((d) => d.counts.chunks),
    elapsed_s: Math.round(elapsedS * 10) / 10,
    passages_per_s: Math.round((documents.length / elapsedS) * 100) / 100,
    failures: failed.slice(0, 20).map((d) => ({ name: d.name, error: d.error })),
  };
}
