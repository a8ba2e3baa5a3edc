import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** What one model call was: the labels of the model series (all from bounded sets). */
export interface ModelCallLabels {
  provider: string;
  /** A model of the price table: the router serves no other. */
  model: string;
  stage: string;
  billing: string;
}

export interface ModelCallOutcome {
  status: 'ok' | 'error';
  tokensIn: number;
  tokensOut: number;
  tokensThinking?: number;
  costMicros: number;
}

const HTTP_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/**
 * The process's Prometheus series, in a registry of its own (not prom-client's global one), so
 * that every app built in one process (tests build many) counts apart. Every label comes from a
 * bounded set: route patterns, never URLs; HTTP methods and status codes; providers, the
 * price table's models, stages, billing and refusal kinds. No tenant, user or dataset id is
 * ever a label: a tenant's share of spend is in the usage ledger, not here.
 */
export class LociMetrics {
  readonly registry = new Registry();

  private readonly httpDuration = new Histogram({
    name: 'loci_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status (status "aborted": the client left first).',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly modelCalls = new Counter({
    name: 'loci_model_calls_total',
    help: 'Model calls made by this process, by provider, model, stage, who is billed and outcome.',
    labelNames: ['provider', 'model', 'stage', 'billing', 'status'] as const,
    registers: [this.registry],
  });
  private readonly modelTokens = new Counter({
    name: 'loci_model_tokens_total',
    help: 'Tokens of model calls by direction (input, output, thinking).',
    labelNames: ['provider', 'model', 'stage', 'billing', 'direction'] as const,
    registers: [this.registry],
  });
  private readonly modelCost = new Counter({
    name: 'loci_model_cost_microdollars_total',
    help: 'What model calls cost, in integer micro-dollars (1e-6 USD), as written to the ledger.',
    labelNames: ['provider', 'model', 'stage', 'billing'] as const,
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: 'loci_limit_refusals_total',
    help: 'Requests refused by a spend limit, by kind (cost_cap_exceeded, quota_exceeded, ...).',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly chunks = new Counter({
    name: 'loci_ingest_chunks_total',
    help: 'Chunks written into the graph by ingestion running in this process, by document kind.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  httpRequest(method: string, route: string, status: string, seconds: number): void {
    this.httpDuration.observe({ method: HTTP_METHODS.has(method) ? method : 'other', route, status }, seconds);
  }

  modelCall(labels: ModelCallLabels, outcome: ModelCallOutcome): void {
    this.modelCalls.inc({ ...labels, status: outcome.status });
    this.modelTokens.inc({ ...labels, direction: 'input' }, outcome.tokensIn);
    this.modelTokens.inc({ ...labels, direction: 'output' }, outcome.tokensOut);
    if (outcome.tokensThinking) this.modelTokens.inc({ ...labels, direction: 'thinking' }, outcome.tokensThinking);
    this.modelCost.inc(labels, outcome.costMicros);
  }

  limitRefusal(kind: string): void {
    this.refusals.inc({ kind });
  }

  chunkIngested(kind: string): void {
    this.chunks.inc({ kind });
  }
}
