import { createServer, IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as a collector receives it over OTLP/HTTP JSON, attributes flattened. */
export interface ReceivedSpan {
  service: string;
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

export interface OtlpReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to (the exporter posts to its /v1/traces). */
  endpoint: string;
  readonly spans: ReceivedSpan[];
  /** Headers of every export request received. */
  readonly exports: IncomingHttpHeaders[];
  close(): Promise<void>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
type OtlpAttribute = { key: string; value: OtlpValue };

/**
 * A loopback OpenTelemetry collector for tests: accepts OTLP/HTTP exports in JSON at
 * /v1/traces and decodes their spans. Protobuf bodies are refused (415), as the exporter Loci
 * ships sends JSON.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const exports: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') return void response.writeHead(404).end();
      if (!String(request.headers['content-type']).startsWith('application/json')) return void response.writeHead(415).end();
      exports.push(request.headers);
      spans.push(...decodeSpans(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    exports,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function decodeSpans(body: {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{ scope?: { name?: string }; spans?: Array<Record<string, any>> }>;
  }>;
}): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of body.resourceSpans ?? []) {
    const service = String(flatten(resourceSpans.resource?.attributes)['service.name'] ?? '');
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        out.push({
          service,
          scope: scopeSpans.scope?.name ?? '',
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || undefined,
          name: span.name,
          kind: span.kind,
          attributes: flatten(span.attributes),
          statusCode: span.status?.code ?? 0,
        });
      }
    }
  }
  return out;
}

function flatten(attributes: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes ?? []) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
  }
  return out;
}
