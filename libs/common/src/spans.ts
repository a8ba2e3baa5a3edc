/**
 * The door through which Loci's own code makes trace spans (model calls, PGlite statements,
 * ingestion jobs) without depending on OpenTelemetry. Tracing is off unless a collector is named
 * (OTEL_EXPORTER_OTLP_ENDPOINT); then the process entry point loads `@loci/tracing`, which
 * installs a recorder here. Until then `inSpan` is a call of `fn` behind one undefined check, and
 * no OpenTelemetry module is loaded at all.
 *
 * Process-wide on purpose: a tracer provider is one per process too (OpenTelemetry's global).
 */

export type SpanAttributeValue = string | number | boolean;
export type SpanAttributes = Record<string, SpanAttributeValue | undefined>;

/** What code running inside a span may add to it. Never tenant text: names, counts, ids of Loci's own. */
export interface SpanHandle {
  setAttributes(attributes: SpanAttributes): void;
}

export interface SpanOptions {
  /** `client` for calls that leave the process (a model provider), `internal` otherwise. */
  kind?: 'internal' | 'client' | 'consumer';
  /** Made only inside a trace already running (a PGlite statement of a request), never as a trace of its own. */
  onlyInTrace?: boolean;
}

export interface SpanRecorder {
  run<T>(name: string, attributes: SpanAttributes, options: SpanOptions, fn: (span: SpanHandle) => Promise<T>): Promise<T>;
  /** Exports what is buffered and stops; called once, on shutdown. */
  shutdown(): Promise<void>;
}

const NO_SPAN: SpanHandle = { setAttributes: () => undefined };

let recorder: SpanRecorder | undefined;

export function installSpanRecorder(installed: SpanRecorder): void {
  recorder = installed;
}

export function tracingEnabled(): boolean {
  return recorder !== undefined;
}

/** Runs `fn` inside a span named `name` when tracing is on; otherwise just runs it. */
export function inSpan<T>(name: string, attributes: SpanAttributes, fn: (span: SpanHandle) => Promise<T>, options: SpanOptions = {}): Promise<T> {
  return recorder ? recorder.run(name, attributes, options, fn) : fn(NO_SPAN);
}

/** Flushes the spans not yet exported (the batch exporter holds them for a few seconds) before the process exits. */
export async function finishSpans(): Promise<void> {
  const ending = recorder;
  recorder = undefined;
  await ending?.shutdown();
}
