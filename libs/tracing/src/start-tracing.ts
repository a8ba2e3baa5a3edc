import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-node';
// Types only: @loci/common loads pino, which must be required after its instrumentation.
import type { SpanAttributes, SpanHandle, SpanOptions, SpanRecorder } from '@loci/common';
import type { TracingSettings } from '@loci/config';

/** Probes answer every few seconds and say nothing a trace would: not traced. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

const KINDS: Record<NonNullable<SpanOptions['kind']>, SpanKind> = {
  internal: SpanKind.INTERNAL,
  client: SpanKind.CLIENT,
  consumer: SpanKind.CONSUMER,
};

/**
 * Starts OpenTelemetry tracing for this process: spans of HTTP (server and the SDKs' fetch
 * calls), Express routes, node-postgres, ioredis and Loci's own (model calls, PGlite statements,
 * ingestion jobs), exported by OTLP/HTTP (JSON) in batches. W3C `traceparent` is accepted on
 * requests and sent on outgoing calls. Must run before the instrumented modules are loaded:
 * instrumentations patch them as they are required, so the entry points call this first and
 * require this module only when a collector is named. The recorder it returns makes Loci's own
 * spans once installed (`installSpanRecorder` of @loci/common).
 */
export function startTracing(settings: TracingSettings & { endpoint: string }, serviceName: string): SpanRecorder {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName ?? serviceName }),
    // A caller's sampling decision is kept (its traceparent flags); new traces are sampled at the ratio.
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.sampleRatio) }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(settings.endpoint), headers: settings.headers })),
    ],
  });
  // The global tracer provider, the AsyncLocalStorage context manager and the W3C trace-context
  // (and baggage) propagators.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0]),
        // The server's outgoing HTTP is the SDKs' (fetch, below); nothing else of its own is worth a trace.
        requireParentforOutgoingSpans: true,
      }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
      // Route spans name the HTTP span by its pattern; one span per middleware would be most of the trace.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      // Background work (queue polls, statistics) traced only inside a job or request span.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      // The command name only: keys and arguments carry tenant ids, client addresses, amounts.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
      // trace_id and span_id on every log line written inside a span; logs stay on stdout.
      new PinoInstrumentation({ disableLogSending: true }),
    ],
  });
  return new OtelSpanRecorder(provider);
}

/** OTEL_EXPORTER_OTLP_ENDPOINT is the collector's base URL; traces go to its /v1/traces. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

class OtelSpanRecorder implements SpanRecorder {
  private readonly tracer;

  constructor(private readonly provider: NodeTracerProvider) {
    this.tracer = provider.getTracer('loci');
  }

  run<T>(name: string, attributes: SpanAttributes, options: SpanOptions, fn: (span: SpanHandle) => Promise<T>): Promise<T> {
    if (options.onlyInTrace && !trace.getSpan(context.active())) return fn(NO_SPAN);
    return this.tracer.startActiveSpan(name, { kind: KINDS[options.kind ?? 'internal'], attributes: defined(attributes) }, async (span: Span) => {
      try {
        return await fn({ setAttributes: (more) => span.setAttributes(defined(more)) });
      } catch (error) {
        span.setAttribute('error.type', errorType(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }
}

const NO_SPAN: SpanHandle = { setAttributes: () => undefined };

function defined(attributes: SpanAttributes): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}

/** The error's code or class, never its message: messages can quote what a tenant sent. */
function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'Error';
}
