import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { readOrCreateDataDirSecret } from './data-dir-secret';
import { parseSettings, RawSettings } from './settings.schema';

/** The resolved, typed settings every module receives (via the SETTINGS token). */
export interface Settings {
  env: RawSettings['NODE_ENV'];
  port: number;
  host: string;
  logLevel: RawSettings['LOG_LEVEL'];
  /** JSON lines, or readable ones (LOG_FORMAT=auto: readable on a terminal outside production). */
  logFormat: 'json' | 'pretty';
  dataDir: string;
  /** acquireTimeoutMs: how long a statement waits for a pooled connection (PostgreSQL) before failing as a store fault. */
  /**
   * sessionUrl: a direct connection to the primary when `url` goes through a transaction-mode
   * pooler (PgBouncer): migrations and session settings use it, and no statement is prepared by name.
   * readUrls: streaming replicas that serve question retrieval (DATABASE_READ_URL); a replica
   * behind by more than replicaMaxLagMs is skipped; a read that must see the client's own write
   * waits at most replicaMaxWaitMs for one, then reads the primary.
   */
  database: {
    url?: string;
    sessionUrl?: string;
    poolMax: number;
    acquireTimeoutMs: number;
    migrateOnStart: boolean;
    readUrls: string[];
    replicaMaxLagMs: number;
    replicaMaxWaitMs: number;
  };
  /** At most one of the two: one Redis (`url`) or the seed nodes of a Redis Cluster. */
  redis: { url?: string; clusterNodes?: string[]; commandTimeoutMs: number };
  jwt: { secret: string; secretSource: 'env' | 'data-dir'; ttlSeconds: number };
  bootstrapOperator?: { email: string; password: string };
  llm: LlmSettings;
  ingest: IngestSettings;
  /**
   * /v1/query: `minSimilarity`; `bm25PostingsPerTerm`, how many of a question word's postings
   * BM25 reads at most, its best (libs/retrieval lexical.queries.ts).
   */
  /**
   * questionsAtOnce: questions worked on at once in this process (keywords, local vectors,
   * retrieval), tenants taking turns for the slots (QuestionTurns in @loci/retrieval): one
   * tenant's flood cannot queue another's question behind all of its own. One tenant may hold
   * all but one. By default one per core and one more: a lone tenant gets a question per core (a
   * retrieval runs its channels' statements in parallel, so more only share the cores), and
   * another tenant's question never waits for a slot behind a flood (the noisy-neighbour bench:
   * B's p95 beside A's flood ~240 ms with 1 or 2 slots and A holding them all, ~400 ms with 4).
   * questionTurnLingerMs: how long after its last question a tenant still counts as asking, so
   * that a flood beside it keeps to an equal share between its questions too.
   * questionPauseMaxMs: the longest a flood's question (its tenant has more waiting) pauses before
   * one statement while a lighter tenant's question runs.
   * questionStatementsAtOnce: the statements of all questions in flight at once in this process,
   * tenants in turn (0: not bounded).
   */
  query: {
    minSimilarity: number;
    bm25PostingsPerTerm: number;
    questionsAtOnce: number;
    questionTurnLingerMs: number;
    questionPauseMaxMs: number;
    questionStatementsAtOnce: number;
  };
  /** gb query: every number of its contract, tunable, the contract's values by default. */
  gb: GbSettings;
  /** Geo (gb query's nearby search, coordinates of places): off unless LOCI_GEO_ENABLED. */
  geo: { enabled: boolean; radiusKm: number };
  /** AES-256-GCM key sealing tenants' own provider keys (32 bytes). */
  encryptionKey: Buffer;
  limits: LimitSettings;
  /** On SIGTERM: how long requests in flight (API) and running jobs (worker) may take to finish. */
  shutdownGraceMs: number;
  login: LoginThrottleSettings;
  http: HttpSettings;
  /** GET /metrics answers only a bearer of this token; unset, the route does not exist (404). */
  metrics: { token?: string };
  /** OpenTelemetry traces, exported by OTLP/HTTP; off (nothing loaded) unless `endpoint` is set. */
  tracing: TracingSettings;
}

export interface TracingSettings {
  /** The collector's OTLP/HTTP base URL (traces go to its `/v1/traces`). */
  endpoint?: string;
  /** Sent with every export (a collector's or vendor's credentials). */
  headers?: Record<string, string>;
  /** Resource `service.name`; default `loci-api` or `loci-worker` by process. */
  serviceName?: string;
  /** Share of new traces recorded (0 to 1); a caller's `traceparent` decision is always kept. */
  sampleRatio: number;
}

/**
 * Login throttling: failed logins per email and per client address, counted in the limit store
 * within a fixed window that starts at the first failure. Past `backoffAfterFailures` failures
 * of an email, each next attempt waits `backoffBaseMs` × 2^(failures − backoffAfterFailures).
 */
export interface LoginThrottleSettings {
  windowMs: number;
  maxFailuresPerEmail: number;
  /** 0 = client addresses are not counted. */
  maxFailuresPerAddress: number;
  backoffAfterFailures: number;
  backoffBaseMs: number;
}

export interface HttpSettings {
  /** Express's `trust proxy`: whose X-Forwarded-For gives the client address. */
  trustProxy: boolean | number | string[];
  /** Origins that may call the API from a browser; empty = no CORS headers at all. */
  corsOrigins: string[];
  /** Strict-Transport-Security max-age; 0 = no HSTS header. */
  hstsMaxAgeSeconds: number;
  /** Time a client has to send a whole request, and its headers (Node's requestTimeout, headersTimeout). */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  /** Serve /docs and /openapi.json. */
  apiDocs: boolean;
  /** The origin clients reach Loci at (MCP OAuth's issuer); unset, each request's own origin. */
  publicUrl?: string;
}

/**
 * Spend control's leases: how long a concurrency slot and a cost reservation live without
 * renewal. A running request renews both at a third of their lease, so these bound how long a
 * crashed process's slot and reservation linger, not how long a request may run.
 */
export interface LimitSettings {
  slotLeaseMs: number;
  reservationLeaseMs: number;
  /**
   * How long a refusal for a request rate is held before it is answered, at most, in ms
   * (LOCI_RATE_REFUSAL_HOLD_MS; 0: at once). Never past the moment the client may retry: see
   * RequestRates.
   */
  rateRefusalHoldMs: number;
}

export interface LlmSettings {
  anthropic: { apiKey?: string; baseUrl?: string };
  openai: { apiKey?: string; baseUrl?: string; sendEmbeddingDimensions: boolean; reasoningEffort: boolean };
  /** Explicit `provider:model` per stage; stages left out get the defaults of the model router. */
  stageModels: Record<string, string | undefined>;
  localEmbeddingDimensions: number;
  timeoutsMs: { chat: number; extract: number; embed: number };
  maxRetries: number;
  /** Model calls in flight at once in this process (all tenants, all stages but local ones). */
  concurrency: number;
  pricesFile?: string;
}

export interface IngestSettings {
  chunkTokens: number;
  chunkOverlapTokens: number;
  /** Cosine similarity of two entity-name vectors from which they are the same entity. */
  entityMatchThreshold: number;
  /** Consume the job queue inside the API process (the embedded default); false with apps/worker. */
  runWorkerInProcess: boolean;
  /**
   * When the embedder is the offline one, a starting worker moves the vectors other offline
   * embedders wrote (another width, another version) to it, in the background
   * (LOCI_MOVE_LOCAL_VECTORS; docs/decisions/0006-offline-vectors-move-themselves.md).
   */
  moveLocalVectors: boolean;
  /**
   * How many graphs of the store may keep their own vectors and HNSW indexes (bulk mode,
   * LOCI_BULK_LOAD_GRAPHS_MAX; 0 turns bulk mode off): every own index is a predicate each
   * insert into its table checks and each plan of that table considers, so they are for a
   * store's large graphs, not for all (docs/decisions/0029-bulk-mode.md).
   */
  bulkLoadGraphsMax: number;
  /** A bulk load with nothing uploaded or ingested for this long is finished by the worker (LOCI_BULK_LOAD_IDLE_MS). */
  bulkLoadIdleMs: number;
  /**
   * maintenance_work_mem of the session that builds a graph's own HNSW index, in MB
   * (LOCI_BULK_INDEX_MEMORY_MB): a build that outgrows it goes on several times slower.
   */
  bulkIndexMemoryMb: number;
  /** Documents one process ingests at once: LOCI_WORKER_CONCURRENCY, else `defaultWorkerConcurrency`. */
  workerConcurrency: number;
  /**
   * Worker threads for CPU-bound ingestion steps (chunking, local NLP, HTML/PDF text), so that
   * they never hold the event loop that answers requests.
   */
  cpuThreads: number;
  /**
   * The old-generation heap of each CPU thread, in MB (LOCI_CPU_THREAD_HEAP_MB). V8's heap flag
   * is per process, so without this a thread got the request thread's --max-old-space-size; a
   * task that outgrows it ends its thread and fails its document, not the process.
   */
  cpuThreadHeapMb: number;
  /**
   * The nice value each CPU thread gives itself on Linux (LOCI_CPU_THREAD_NICE, 0 = the process's
   * own): reading a tenant's PDFs and extracting its documents yield the cores to the request
   * thread and PostgreSQL when questions want them, and use them fully when nothing else does.
   */
  cpuThreadNice: number;
  /**
   * The longest batch work (a document's chunking and extraction before each task and each
   * chunk's write, an upload's PDF between its pages) waits while questions run on this machine
   * (LOCI_BATCH_PAUSE_MAX_MS, 0 = never): a nice value yields to the request thread but not to
   * PostgreSQL's backends.
   */
  batchPauseMaxMs: number;
  /** The most one task may run on a CPU thread before the thread is stopped (LOCI_CPU_TASK_TIMEOUT_MS). */
  cpuTaskTimeoutMs: number;
  /** Bounds on what an uploaded file expands to, and on the time reading it may take. */
  upload: UploadSettings;
  /** gb remember of a text another request is ingesting: its lease, and how long a retry waits for it. */
  remember: RememberLeaseSettings;
}

/**
 * An uploaded file is bounded by what it expands to, not only by its bytes: a few kilobytes of
 * PDF can draw millions of characters, and deep HTML costs its parser quadratic time.
 */
export interface UploadSettings {
  /** Characters of text one file may yield (LOCI_UPLOAD_MAX_TEXT_CHARS). */
  maxTextChars: number;
  /** Pages of one PDF (LOCI_UPLOAD_MAX_PDF_PAGES). */
  maxPdfPages: number;
  /** Levels of element nesting of one HTML file (LOCI_UPLOAD_MAX_HTML_DEPTH). */
  maxHtmlDepth: number;
  /** The most reading one file's text may take on a CPU thread (LOCI_UPLOAD_READ_TIMEOUT_MS). */
  readTimeoutMs: number;
}

/**
 * A gb remember ingests its text inline under a lease on the document, renewed every third of
 * `leaseMs` while it runs: a retry of the same text waits for it (at most `waitMs`, then 409)
 * instead of ingesting it a second time beside it, and takes the text over once the lease has
 * passed without renewal (its process died).
 */
export interface RememberLeaseSettings {
  leaseMs: number;
  waitMs: number;
}

/**
 * The numbers of the gb query contract (`LOCI_GB_*`). The same fields as `GbQuerySettings` of
 * `@loci/retrieval` (documented there), which the API module checks at compile time.
 */
export interface GbSettings {
  maxTerms: number;
  minTermLength: number;
  wholeNameScore: number;
  termInNameScore: number;
  termInDescriptionScore: number;
  keywordSeeds: number;
  similarEntities: number;
  similarEdges: number;
  similarChunks: number;
  similarSummaries: number;
  minSimilarity: number;
  fallbackSeeds: number;
  maxExpandedEdges: number;
  passagesWithText: number;
  passagesSummaryOnly: number;
  maxOutputTokens: number;
  lexicalChunks: number;
}

export const SETTINGS = Symbol('SETTINGS');

/** The schema's bound on LOCI_WORKER_CONCURRENCY. */
const MAX_WORKER_CONCURRENCY = 64;

/**
 * Documents one process ingests at once when LOCI_WORKER_CONCURRENCY is unset: enough to keep
 * every core busy (offline extraction on the CPU threads, PostgreSQL writing the chunks) and
 * every model slot busy (a document's chunk holds two provider calls, summarize and extract, so
 * `modelConcurrency / 2` documents fill LOCI_MODEL_CONCURRENCY), whichever needs more; never
 * more than the database pool has connections, since each document writes its chunks in a
 * transaction of its own and more would only wait for a connection (and, in the API process,
 * take them from requests). docs/decisions/0028-job-queue-and-concurrency.md.
 */
export function defaultWorkerConcurrency(machine: { cores: number; modelConcurrency: number; poolMax: number; embedded?: boolean }): number {
  const wanted = Math.max(machine.cores, Math.ceil(machine.modelConcurrency / 2));
  const connections = machine.embedded ? EMBEDDED_WORKER_CONCURRENCY : machine.poolMax;
  return Math.max(1, Math.min(wanted, connections, MAX_WORKER_CONCURRENCY));
}

/**
 * The embedded store (PGlite) is one connection whose queries run on the API's own thread: a
 * third or fourth document writes no sooner, it only lengthens the queue every request waits
 * behind (four 400 KB documents at once under `npm start`: /healthz took 1.9 s). Two, as before
 * the derived default, keeps one document's extraction on the CPU threads beside the other's writes.
 */
const EMBEDDED_WORKER_CONCURRENCY = 2;

/** Reads and validates the environment, and fills the embedded defaults that need the disk. */
export function loadSettings(env: Record<string, string | undefined> = process.env): Settings {
  const raw = parseSettings(env);
  const dataDir = resolve(raw.LOCI_DATA_DIR);
  return {
    env: raw.NODE_ENV,
    port: raw.PORT,
    host: raw.HOST,
    logLevel: raw.LOG_LEVEL,
    logFormat: raw.LOG_FORMAT === 'auto' ? (process.stdout.isTTY && raw.NODE_ENV !== 'production' ? 'pretty' : 'json') : raw.LOG_FORMAT,
    metrics: { token: raw.LOCI_METRICS_TOKEN },
    tracing: {
      endpoint: raw.OTEL_EXPORTER_OTLP_ENDPOINT,
      headers: raw.OTEL_EXPORTER_OTLP_HEADERS,
      serviceName: raw.OTEL_SERVICE_NAME,
      sampleRatio: raw.LOCI_TRACE_SAMPLE_RATIO,
    },
    dataDir,
    database: {
      url: raw.DATABASE_URL,
      sessionUrl: raw.DATABASE_SESSION_URL,
      poolMax: raw.LOCI_DB_POOL_MAX,
      acquireTimeoutMs: raw.LOCI_DB_ACQUIRE_TIMEOUT_MS,
      migrateOnStart: raw.LOCI_MIGRATE_ON_START,
      readUrls: raw.DATABASE_READ_URL ?? [],
      replicaMaxLagMs: raw.LOCI_REPLICA_MAX_LAG_MS,
      replicaMaxWaitMs: raw.LOCI_REPLICA_MAX_WAIT_MS,
    },
    redis: { url: raw.REDIS_URL, clusterNodes: raw.REDIS_CLUSTER_NODES, commandTimeoutMs: raw.LOCI_REDIS_COMMAND_TIMEOUT_MS },
    jwt: {
      secret: raw.JWT_SECRET ?? readOrCreateDataDirSecret(dataDir, 'jwt_secret', 48, 'JWT_SECRET'),
      secretSource: raw.JWT_SECRET ? 'env' : 'data-dir',
      ttlSeconds: raw.JWT_TTL_SECONDS,
    },
    llm: {
      anthropic: { apiKey: raw.ANTHROPIC_API_KEY, baseUrl: raw.ANTHROPIC_BASE_URL },
      openai: {
        apiKey: raw.OPENAI_API_KEY,
        baseUrl: raw.OPENAI_BASE_URL,
        sendEmbeddingDimensions: raw.LOCI_OPENAI_EMBED_DIMENSIONS_PARAM,
        reasoningEffort: raw.LOCI_OPENAI_REASONING_EFFORT,
      },
      stageModels: {
        extract: raw.LOCI_EXTRACT_MODEL,
        summarize: raw.LOCI_SUMMARIZE_MODEL,
        keywords: raw.LOCI_KEYWORDS_MODEL,
        answer: raw.LOCI_ANSWER_MODEL,
        query: raw.LOCI_QUERY_MODEL,
        detect_geo: raw.LOCI_DETECT_GEO_MODEL,
        embed: raw.LOCI_EMBED_MODEL,
      },
      localEmbeddingDimensions: raw.LOCI_LOCAL_EMBEDDING_DIM,
      timeoutsMs: { chat: raw.LOCI_LLM_TIMEOUT_MS, extract: raw.LOCI_EXTRACT_TIMEOUT_MS, embed: raw.LOCI_EMBED_TIMEOUT_MS },
      maxRetries: raw.LOCI_LLM_MAX_RETRIES,
      concurrency: raw.LOCI_MODEL_CONCURRENCY,
      pricesFile: raw.LOCI_PRICES_FILE,
    },
    query: {
      minSimilarity: raw.LOCI_QUERY_MIN_SIMILARITY,
      bm25PostingsPerTerm: raw.LOCI_BM25_POSTINGS_PER_TERM,
      questionsAtOnce: raw.LOCI_QUESTIONS_AT_ONCE ?? availableParallelism() + 1,
      questionTurnLingerMs: raw.LOCI_QUESTION_TURN_LINGER_MS,
      questionPauseMaxMs: raw.LOCI_QUESTION_PAUSE_MAX_MS,
      questionStatementsAtOnce: raw.LOCI_QUESTION_STATEMENTS_AT_ONCE,
    },
    gb: {
      maxTerms: raw.LOCI_GB_MAX_TERMS,
      minTermLength: raw.LOCI_GB_MIN_TERM_LENGTH,
      wholeNameScore: raw.LOCI_GB_WHOLE_NAME_SCORE,
      termInNameScore: raw.LOCI_GB_TERM_IN_NAME_SCORE,
      termInDescriptionScore: raw.LOCI_GB_TERM_IN_DESCRIPTION_SCORE,
      keywordSeeds: raw.LOCI_GB_KEYWORD_SEEDS,
      similarEntities: raw.LOCI_GB_SIMILAR_ENTITIES,
      similarEdges: raw.LOCI_GB_SIMILAR_EDGES,
      similarChunks: raw.LOCI_GB_SIMILAR_CHUNKS,
      similarSummaries: raw.LOCI_GB_SIMILAR_SUMMARIES,
      minSimilarity: raw.LOCI_GB_MIN_SIMILARITY,
      fallbackSeeds: raw.LOCI_GB_FALLBACK_SEEDS,
      maxExpandedEdges: raw.LOCI_GB_MAX_EXPANDED_EDGES,
      passagesWithText: raw.LOCI_GB_PASSAGES_WITH_TEXT,
      passagesSummaryOnly: raw.LOCI_GB_PASSAGES_SUMMARY_ONLY,
      maxOutputTokens: raw.LOCI_GB_MAX_OUTPUT_TOKENS,
      lexicalChunks: raw.LOCI_GB_LEXICAL_CHUNKS,
    },
    geo: { enabled: raw.LOCI_GEO_ENABLED, radiusKm: raw.LOCI_GEO_RADIUS_KM },
    limits: { slotLeaseMs: raw.LOCI_SLOT_LEASE_MS, reservationLeaseMs: raw.LOCI_RESERVATION_LEASE_MS, rateRefusalHoldMs: raw.LOCI_RATE_REFUSAL_HOLD_MS },
    shutdownGraceMs: raw.LOCI_SHUTDOWN_GRACE_MS,
    login: {
      windowMs: raw.LOCI_LOGIN_WINDOW_SECONDS * 1000,
      maxFailuresPerEmail: raw.LOCI_LOGIN_MAX_FAILURES_PER_EMAIL,
      maxFailuresPerAddress: raw.LOCI_LOGIN_MAX_FAILURES_PER_ADDRESS,
      backoffAfterFailures: raw.LOCI_LOGIN_BACKOFF_AFTER_FAILURES,
      backoffBaseMs: raw.LOCI_LOGIN_BACKOFF_BASE_MS,
    },
    http: {
      trustProxy: raw.LOCI_TRUST_PROXY,
      corsOrigins: raw.LOCI_CORS_ORIGINS,
      hstsMaxAgeSeconds: raw.LOCI_HSTS_MAX_AGE_SECONDS,
      requestTimeoutMs: raw.LOCI_HTTP_REQUEST_TIMEOUT_MS,
      // Node refuses a headers timeout longer than the request timeout.
      headersTimeoutMs: Math.min(raw.LOCI_HTTP_HEADERS_TIMEOUT_MS, raw.LOCI_HTTP_REQUEST_TIMEOUT_MS),
      apiDocs: raw.LOCI_API_DOCS,
      publicUrl: raw.LOCI_PUBLIC_URL,
    },
    ingest: {
      chunkTokens: raw.LOCI_CHUNK_TOKENS,
      chunkOverlapTokens: raw.LOCI_CHUNK_OVERLAP_TOKENS,
      entityMatchThreshold: raw.LOCI_ENTITY_MATCH_THRESHOLD,
      runWorkerInProcess: raw.LOCI_RUN_WORKER,
      moveLocalVectors: raw.LOCI_MOVE_LOCAL_VECTORS,
      bulkLoadGraphsMax: raw.LOCI_BULK_LOAD_GRAPHS_MAX,
      bulkLoadIdleMs: raw.LOCI_BULK_LOAD_IDLE_MS,
      bulkIndexMemoryMb: raw.LOCI_BULK_INDEX_MEMORY_MB,
      workerConcurrency:
        raw.LOCI_WORKER_CONCURRENCY ??
        defaultWorkerConcurrency({
          cores: availableParallelism(),
          modelConcurrency: raw.LOCI_MODEL_CONCURRENCY,
          poolMax: raw.LOCI_DB_POOL_MAX,
          embedded: !raw.DATABASE_URL,
        }),
      cpuThreads: raw.LOCI_CPU_THREADS,
      cpuThreadHeapMb: raw.LOCI_CPU_THREAD_HEAP_MB,
      cpuThreadNice: raw.LOCI_CPU_THREAD_NICE,
      batchPauseMaxMs: raw.LOCI_BATCH_PAUSE_MAX_MS,
      cpuTaskTimeoutMs: raw.LOCI_CPU_TASK_TIMEOUT_MS,
      upload: {
        maxTextChars: raw.LOCI_UPLOAD_MAX_TEXT_CHARS,
        maxPdfPages: raw.LOCI_UPLOAD_MAX_PDF_PAGES,
        maxHtmlDepth: raw.LOCI_UPLOAD_MAX_HTML_DEPTH,
        readTimeoutMs: raw.LOCI_UPLOAD_READ_TIMEOUT_MS,
      },
      remember: { leaseMs: raw.LOCI_REMEMBER_LEASE_MS, waitMs: raw.LOCI_REMEMBER_WAIT_MS },
    },
    encryptionKey: raw.LOCI_ENCRYPTION_KEY
      ? Buffer.from(raw.LOCI_ENCRYPTION_KEY, 'base64')
      : Buffer.from(readOrCreateDataDirSecret(dataDir, 'encryption_key', 32, 'LOCI_ENCRYPTION_KEY'), 'base64url'),
    bootstrapOperator:
      raw.LOCI_BOOTSTRAP_OPERATOR_EMAIL && raw.LOCI_BOOTSTRAP_OPERATOR_PASSWORD
        ? { email: raw.LOCI_BOOTSTRAP_OPERATOR_EMAIL, password: raw.LOCI_BOOTSTRAP_OPERATOR_PASSWORD }
        : undefined,
  };
}
