import type { RetrievalMode } from '../../libs/retrieval/src/retrieval.types';

/** A /v1/query context chunk: the fields the eval reads. */
export interface ContextChunk {
  text: string;
  document_name: string | null;
}

export interface QueryReply {
  answer: string;
  metadata: { mode: string; model: string; latency_ms: number; no_answer_reason?: string | null };
  context?: { chunks: ContextChunk[] } | null;
}

/** A gb evidence passage (the contract's fields). */
export interface GbPassageView {
  artifact_id: number;
  parent_id: number;
  index: number;
  summary?: string;
  text?: string;
}

/** A gb query reply: the fields the eval reads. */
export interface GbQueryReply {
  answer: string;
  evidence: {
    entities: Array<{ id: number; name: string }>;
    edges: Array<{ id: number; source: string; target: string; relation: string; artifact_id?: number }>;
    passages: GbPassageView[];
  };
}

export interface DocumentView {
  document_id: string;
  name: string;
  status: 'pending' | 'processing' | 'processed' | 'failed' | 'deferred';
  error: string | null;
  counts: { chunks: number; entities: number; edges: number };
  created_at: string;
  processed_at: string | null;
}

/** Thin JSON client of the routes the eval speaks; any non-2xx is an error naming the route. */
export class LociClient {
  constructor(
    readonly url: string,
    private readonly auth: Record<string, string> = {},
  ) {}

  as(auth: { token: string } | { apiKey: string }): LociClient {
    return new LociClient(this.url, 'token' in auth ? { authorization: `Bearer ${auth.token}` } : { 'x-api-key': auth.apiKey });
  }

  async login(email: string, password: string): Promise<string> {
    return (await this.send<{ access_token: string }>('POST', '/v1/auth/login', { email, password })).access_token;
  }

  createTenant(name: string) {
    return this.send<{ id: string }>('POST', '/v1/admin/tenants', { name, tier: 'enterprise', billing: 'platform' });
  }

  /** No quota and no concurrency limit: the eval asks hundreds of questions one after another. */
  unlimit(tenantId: string) {
    return this.send('PATCH', `/v1/admin/tenants/${tenantId}/limits`, {
      daily_cost_cap_usd: null,
      monthly_cost_cap_usd: null,
      daily_query_quota: null,
      max_concurrent_queries: null,
    });
  }

  createUser(tenantId: string, email: string, password: string) {
    return this.send('POST', `/v1/admin/tenants/${tenantId}/users`, { email, password, role: 'member' });
  }

  async createApiKey(tenantId: string, name: string): Promise<string> {
    return (await this.send<{ key: string }>('POST', `/v1/admin/tenants/${tenantId}/api-keys`, { name })).key;
  }

  uploadDocument(name: string, text: string, documentDate?: string) {
    return this.send<{ document_id: string; status: string }>('POST', '/v1/documents', { name, text, ...(documentDate ? { document_date: documentDate } : {}) });
  }

  /** Every document of the tenant, page by page. */
  async documents(): Promise<DocumentView[]> {
    const all: DocumentView[] = [];
    for (let offset = 0; ; offset += 200) {
      const page = await this.send<{ items: DocumentView[] }>('GET', `/v1/documents?limit=200&offset=${offset}`);
      all.push(...page.items);
      if (page.items.length < 200) return all;
    }
  }

  /** `bounds`: LightRAG's QueryParam names (`max_total_tokens`, `top_k`, `chunk_top_k`), left out when not given. */
  query(query: string, mode: RetrievalMode, contextOnly: boolean, bounds: { max_total_tokens?: number } = {}) {
    return this.send<QueryReply>('POST', '/v1/query', { query, mode, context_only: contextOnly, ...bounds });
  }

  /** gb remember: one text into the user's `main` dataset, synchronously (ingested when it returns). */
  remember(userId: string, text: string) {
    return this.send<{ artifact_id: number; duplicate?: boolean }>('POST', '/v1/gb/remember', { user_id: userId, text });
  }

  gbQuery(userId: string, query: string) {
    return this.send<GbQueryReply>('POST', '/v1/gb/query', { user_id: userId, query });
  }

  private async send<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await withRetry(() =>
      fetch(`${this.url}${path}`, {
        method,
        headers: { ...this.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
}

/**
 * Retries a request that failed before any response (fetch's "fetch failed": a reused
 * keep-alive socket reset by the server). While the in-process worker ingests, the API's event
 * loop stalls for long stretches and such resets happen. Every call the eval makes is safe to
 * repeat: uploads are deduplicated by content hash, queries and reads change nothing.
 */
async function withRetry(request: () => Promise<Response>, attempts = 5): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      if (!(error instanceof TypeError) || attempt >= attempts) throw error;
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}
