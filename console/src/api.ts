import { askStream, createLociClient, LociApiError, type QueryStreamEvent, type Schemas } from '@loci/client';

/**
 * The console's only way to the API: same origin, the session's token in the Authorization
 * header (never in a URL), and every refusal turned into an ApiError carrying what the API said,
 * whichever of its error shapes the route speaks.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }
}

let token: string | null = sessionStorage.getItem('loci.token');
let onUnauthorized: () => void = () => undefined;

export function setToken(value: string | null): void {
  token = value;
  if (value) sessionStorage.setItem('loci.token', value);
  else sessionStorage.removeItem('loci.token');
}

export const currentToken = () => token;
export const whenUnauthorized = (callback: () => void) => (onUnauthorized = callback);

/** What the API said, from any of its shapes: `{error:{code,message}}`, `{detail:...}`, `{error:"..."}`. */
export function messageOf(status: number, body: unknown): { message: string; code: string | null } {
  const b = body as Record<string, any> | null;
  if (b && typeof b.error === 'object' && b.error) {
    const details = Array.isArray(b.error.details) ? b.error.details.map((d: any) => `${d.field}: ${d.message}`).join('; ') : '';
    return { message: details && !String(b.error.message).includes(details) ? `${b.error.message} (${details})` : b.error.message, code: b.error.code ?? null };
  }
  if (b && typeof b.error === 'string') return { message: b.error, code: b.error };
  if (b && b.detail !== undefined) {
    if (typeof b.detail === 'string') return { message: b.detail, code: null };
    if (Array.isArray(b.detail)) return { message: b.detail.map((d: any) => `${(d.loc ?? []).join('.')}: ${d.msg}`).join('; '), code: 'validation' };
    return { message: b.detail.message ?? refusalSentence(b.detail) ?? b.detail.error ?? JSON.stringify(b.detail), code: b.detail.error ?? null };
  }
  return { message: `The server answered ${status}.`, code: null };
}

/** /v1/query's limit refusals (`{"detail": {"error": ..., "retry_after": s}}`) in words; the code is shown beside. */
const REFUSALS: Record<string, string> = {
  cost_cap_exceeded: "Your tenant's daily spending cap is reached.",
  cost_cap_monthly_exceeded: "Your tenant's monthly spending cap is reached.",
  platform_budget_paused: "The platform's daily spending cap is reached: answers written by its model are paused.",
  daily_query_quota_exceeded: "Today's quota of questions is used up.",
  too_many_concurrent_queries: 'Too many of your questions are being answered at once.',
  rate_limit_exceeded: 'Too many requests in the last minute.',
  limits_unavailable: 'The limits cannot be checked just now.',
};

function refusalSentence(detail: { error?: unknown; retry_after?: unknown }): string | undefined {
  const sentence = typeof detail.error === 'string' ? REFUSALS[detail.error] : undefined;
  if (!sentence || typeof detail.retry_after !== 'number') return sentence;
  const s = detail.retry_after;
  const wait = s < 90 ? `${Math.max(1, Math.ceil(s))} s` : s < 5400 ? `${Math.ceil(s / 60)} min` : `${Math.ceil(s / 3600)} h`;
  return `${sentence} Try again in ${wait}.`;
}

/**
 * The typed client (packages/client): paths, parameters and bodies checked against the API's
 * document; same origin, the session's current token read on every request.
 */
export const loci = createLociClient({
  baseUrl: '',
  token: () => token,
  fetch: (request) =>
    fetch(request).catch(() => {
      throw new ApiError(0, 'The server cannot be reached.', null);
    }),
});

/** What the API refused with, as an ApiError; a refused session signs out. */
function refusal(status: number, body: unknown): ApiError {
  const { message, code } = messageOf(status, body ?? null);
  if (status === 401 && token) onUnauthorized();
  return new ApiError(status, message, code);
}

/** A call's data, or what the API said as an ApiError (a refused session signs out). */
export async function call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await pending;
  if (!response.ok) throw refusal(response.status, error);
  return data as T;
}

export type AnswerEvent = Exclude<QueryStreamEvent, { event: 'error' }>;

/**
 * A question answered as Server-Sent Events (`"stream": true`), its events as they arrive. A
 * refusal is an ApiError as with `call`, whether it came before the stream (its status) or in it
 * (an `error` event, with the status it would have had). `signal` stops it: the request is
 * aborted, and the server stops the model.
 */
export async function* askStreamed(body: Omit<Schemas['QueryRequest'], 'stream'>, signal: AbortSignal): AsyncGenerator<AnswerEvent> {
  try {
    for await (const e of askStream(loci, body, { signal })) {
      if (e.event === 'error') throw refusal(e.data.status, e.data);
      yield e;
    }
  } catch (err) {
    throw err instanceof LociApiError ? refusal(err.status, err.body) : err;
  }
}

/**
 * Uploads one file with upload progress, as multipart like the API expects: fetch (and so the
 * typed client) reports no upload progress, so this one call stays an XMLHttpRequest.
 */
export function uploadFile(file: File, onProgress: (fraction: number) => void): Promise<{ document_id: string; status: string }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/v1/documents');
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onerror = () => reject(new ApiError(0, 'The upload did not reach the server.', null));
    xhr.onload = () => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(xhr.responseText);
      } catch {
        parsed = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(parsed as { document_id: string; status: string });
      else {
        const { message, code } = messageOf(xhr.status, parsed);
        reject(new ApiError(xhr.status, message, code));
      }
    };
    const form = new FormData();
    form.append('file', file);
    xhr.send(form);
  });
}

export interface Me {
  kind: 'jwt' | 'api_key';
  tenant_id: string | null;
  user_id: string | null;
  role: 'operator' | 'admin' | 'member' | null;
  email: string | null;
  tenant_name: string | null;
}

export interface DocumentItem {
  document_id: string;
  name: string;
  status: 'pending' | 'processing' | 'processed' | 'failed' | 'deferred';
  error: string | null;
  progress: { chunks_done: number; chunks_total: number };
  counts: { chunks: number; entities: number; edges: number };
  created_at: string;
}

export interface Fact {
  fact_id: string;
  status: 'live' | 'ended' | 'superseded';
  source: { entity_id: string; name: string; type: string | null };
  relation: string;
  target: { entity_id: string; name: string; type: string | null };
  description: string | null;
  valid_at: string | null;
  invalid_at: string | null;
  created_at: string;
  expired_at: string | null;
  documents: { document_id: string; name: string }[];
}

export interface UsageDay {
  tenant_id: string;
  day: string;
  questions: number;
  model_calls: number;
  tokens_in: number;
  tokens_out: number;
  cost_usd: { platform: number; own_key: number };
  refusals: Record<string, number>;
  documents: number;
  ingested_mb: number;
}

export interface Limits {
  daily_cost_cap_usd: number | null;
  monthly_cost_cap_usd: number | null;
  daily_query_quota: number | null;
  max_concurrent_queries: number | null;
  max_running_jobs: number | null;
  requests_per_minute: number | null;
  request_burst: number | null;
  daily_document_quota: number | null;
  daily_ingest_mb: number | null;
  max_stored_mb: number | null;
}

export interface Tenant {
  id: string;
  name: string;
  tier: string;
  billing: string;
  limits: Limits;
  suspended_at: string | null;
  spend?: { today_usd: number; this_month_usd: number };
  ingestion?: { documents_today: number; ingested_mb_today: number; stored_mb: number };
}
