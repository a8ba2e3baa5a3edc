/**
 * What a call served: `query` a question (on /v1/query and on gb query alike, the gb contract's
 * type; the request log's route tells the surfaces apart), `remember` a gb text, `ingest` a
 * document.
 */
export type InferenceKind = 'query' | 'remember' | 'ingest';

export interface OwnProviderKeys {
  anthropic?: string;
  openai?: string;
}

/**
 * Who a model call is for and how it is billed. One context per HTTP request or job attempt;
 * it numbers the calls made under it, so each (request id, call index) names one ledger row.
 */
export class CallContext {
  private calls = 0;

  constructor(
    readonly tenantId: string,
    /** The HTTP request id, or `job:<id>:<attempt>` for background work (a new one per attempt). */
    readonly requestId: string,
    readonly kind: InferenceKind,
    /** The tenant's own keys when it is billed `own_key`; absent means the platform pays. */
    readonly ownKeys?: OwnProviderKeys,
    readonly documentId?: number,
    /**
     * Whether spend control reserves this context's calls against the tenant's caps. False only
     * for an API-key /v1/query, which spends nothing on chat models and is never limited.
     */
    readonly spendLimited = true,
    /**
     * Ends the context's provider calls when whoever asked went away (a streamed answer's
     * client disconnected): a call in flight is aborted, one not yet made is not made.
     */
    readonly signal?: AbortSignal,
  ) {}

  get billedTo(): 'platform' | 'own_key' {
    return this.ownKeys ? 'own_key' : 'platform';
  }

  nextCallIndex(): number {
    return this.calls++;
  }
}
