import { createServer, IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  anthropicErrorBody,
  anthropicMessage,
  anthropicStreamEvents,
  AnthropicReply,
  openAiChatCompletion,
  OpenAiChatReply,
  openAiEmbeddings,
  OpenAiEmbeddingsReply,
  openAiErrorBody,
  openAiStreamEvents,
  OPENAI_JSON_SCHEMA_REFUSAL,
  sseFrame,
  WireEvent,
} from './llm-double.wire';

export { embeddingFor, estimateTokens, float32Base64 } from './llm-double.wire';
export type { AnthropicReply, OpenAiChatReply, OpenAiEmbeddingsReply, WireEvent } from './llm-double.wire';

/**
 * A loopback HTTP server that speaks the Anthropic Messages API and the OpenAI chat-completions
 * and embeddings APIs well enough for the real SDKs. Tests point the SDKs at it with base URLs,
 * script replies and faults per endpoint, and assert on the requests it received: nothing
 * wraps the SDKs in mocks, so their retry, timeout and parsing behaviour is what is tested.
 */

export type DoubleEndpoint = 'anthropic.messages' | 'openai.chat' | 'openai.embeddings';

export interface ReceivedRequest {
  endpoint: DoubleEndpoint | 'unknown';
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (the raw text when it was not JSON). */
  body: any;
  /** Set when the client closed the connection before the reply had been sent in full (it gave up, or aborted a stream). */
  clientClosed: boolean;
  /** Settles once the exchange is over: the reply sent in full, or the connection closed. */
  ended: Promise<void>;
}

/** How a reply misbehaves. Any of these combine with the reply's content fields. */
export interface Fault {
  /** Answer with this HTTP status and the API's error body instead of a result. */
  status?: number;
  /** Sent as `retry-after` (seconds; fractions are honoured by both SDKs). */
  retryAfterSeconds?: number;
  /** Sent as `retry-after-ms`, which both SDKs prefer over `retry-after`. */
  retryAfterMs?: number;
  /** Destroy the socket without answering (a connection reset). */
  reset?: boolean;
  /** Wait this long before answering (or resetting). */
  delayMs?: number;
  /** Then wait until this settles: a call held open for as long as the test wants. */
  hold?: Promise<unknown>;
  /** Cut the text short with stop_reason `max_tokens` / finish_reason `length`. */
  truncated?: boolean;
  /** Answer 200 with a body that is not JSON. */
  malformed?: boolean;
  /** Send this JSON body as it is (with `status`, default 200) instead of a computed one. */
  body?: unknown;
  /** A streamed reply (`stream: true`) waits this long before each event. */
  chunkDelayMs?: number;
  /**
   * A streamed reply stops after this many events (message_start and ping count) and sends
   * nothing more until the client closes the connection: a model still writing when its client leaves.
   */
  stallAfterEvents?: number;
}

export type Step<Reply> = Fault & Reply;
export type Script<Reply> = Step<Reply> | ((body: ReceivedRequest['body'], request: ReceivedRequest) => Step<Reply>);

export interface EndpointScript<Reply> {
  /** The reply for every request from now on (until `reset`), fixed or computed from the request. */
  reply(script: Script<Reply>): void;
  /** One-shot steps, consumed in order by the next requests before `reply` applies again. */
  queue(...steps: Array<Script<Reply>>): void;
  /** Requests this endpoint received, oldest first. */
  readonly requests: ReceivedRequest[];
}

export interface LlmDouble {
  /** Anthropic base URL (`ANTHROPIC_BASE_URL` style; the SDK appends `/v1/messages`). */
  anthropicBaseUrl: string;
  /** OpenAI base URL, including `/v1` (the SDK appends `/chat/completions`, `/embeddings`). */
  openaiBaseUrl: string;
  anthropic: EndpointScript<AnthropicReply>;
  openai: { chat: EndpointScript<OpenAiChatReply>; embeddings: EndpointScript<OpenAiEmbeddingsReply> };
  /** Every request received, oldest first. */
  readonly requests: ReceivedRequest[];
  /** Forget scripts, queued steps and the request log (call between tests). */
  reset(): void;
  close(): Promise<void>;
}

export interface LlmDoubleOptions {
  /** The embedding length when a request does not ask for `dimensions`. */
  embeddingDimensions?: number;
}

const ROUTES: Partial<Record<string, DoubleEndpoint>> = {
  'POST /v1/messages': 'anthropic.messages',
  'POST /v1/chat/completions': 'openai.chat',
  'POST /v1/embeddings': 'openai.embeddings',
};

class Endpoint<Reply> implements EndpointScript<Reply> {
  private script: Script<Reply> = {} as Step<Reply>;
  private readonly pending: Array<Script<Reply>> = [];
  readonly requests: ReceivedRequest[] = [];

  reply(script: Script<Reply>): void {
    this.script = script;
  }

  queue(...steps: Array<Script<Reply>>): void {
    this.pending.push(...steps);
  }

  next(request: ReceivedRequest): Step<Reply> {
    this.requests.push(request);
    const script = this.pending.shift() ?? this.script;
    return typeof script === 'function' ? script(request.body, request) : script;
  }

  reset(): void {
    this.script = {} as Step<Reply>;
    this.pending.length = 0;
    this.requests.length = 0;
  }
}

export async function startLlmDouble(options: LlmDoubleOptions = {}): Promise<LlmDouble> {
  const nativeDimensions = options.embeddingDimensions ?? 16;
  const endpoints = {
    'anthropic.messages': new Endpoint<AnthropicReply>(),
    'openai.chat': new Endpoint<OpenAiChatReply>(),
    'openai.embeddings': new Endpoint<OpenAiEmbeddingsReply>(),
  };
  const requests: ReceivedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0];
    const endpoint = ROUTES[`${req.method} ${path}`] ?? 'unknown';
    let ended!: () => void;
    const request: ReceivedRequest = {
      endpoint,
      method: req.method ?? '',
      path,
      headers: req.headers,
      body: parseJson(raw),
      clientClosed: false,
      ended: new Promise<void>((resolve) => (ended = resolve)),
    };
    res.once('close', () => {
      if (!res.writableFinished) request.clientClosed = true;
      ended();
    });
    requests.push(request);
    if (endpoint === 'unknown') return send(res, 404, { error: { message: `double: no route ${req.method} ${path}` } });

    const step = endpoints[endpoint].next(request);
    if (step.delayMs) await wait(step.delayMs);
    if (step.hold) await step.hold.catch(() => undefined);
    if (req.socket.destroyed) return; // the client gave up (its timeout) while we waited
    if (step.reset) return void req.socket.destroy();

    const retryHeaders = {
      ...(step.retryAfterSeconds === undefined ? {} : { 'retry-after': String(step.retryAfterSeconds) }),
      ...(step.retryAfterMs === undefined ? {} : { 'retry-after-ms': String(step.retryAfterMs) }),
    };
    const isAnthropic = endpoint === 'anthropic.messages';
    if ((step as OpenAiChatReply).refuseJsonSchema && request.body?.response_format?.type === 'json_schema') {
      return send(res, 400, OPENAI_JSON_SCHEMA_REFUSAL);
    }
    if (step.status && step.status >= 400) {
      const errorBody = isAnthropic ? anthropicErrorBody(step.status) : openAiErrorBody(step.status);
      return send(res, step.status, step.body ?? errorBody, retryHeaders);
    }
    if (step.malformed) return send(res, 200, '{"id": "cut-off', retryHeaders);
    if (step.body !== undefined) return send(res, step.status ?? 200, step.body, retryHeaders);

    const truncated = step.truncated ?? false;
    if (request.body?.stream === true && endpoint !== 'openai.embeddings') {
      const events =
        endpoint === 'anthropic.messages'
          ? anthropicStreamEvents(anthropicMessage(request.body, step as AnthropicReply, truncated))
          : openAiStreamEvents(openAiChatCompletion(request.body, step, truncated), request.body.stream_options?.include_usage === true);
      return stream(res, events, step, retryHeaders);
    }
    const body =
      endpoint === 'anthropic.messages'
        ? anthropicMessage(request.body, step as AnthropicReply, truncated)
        : endpoint === 'openai.chat'
          ? openAiChatCompletion(request.body, step, truncated)
          : openAiEmbeddings(request.body, step, nativeDimensions);
    return send(res, step.status ?? 200, body, retryHeaders);
  };

  /** Server-sent events, paced and stalled as the step says; stops writing once the client is gone. */
  const stream = async (res: ServerResponse, events: WireEvent[], step: Fault, headers: Record<string, string>) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': 'req_double', ...headers });
    for (const [i, event] of events.entries()) {
      if (i === step.stallAfterEvents && !res.destroyed) {
        await new Promise<void>((resolve) => res.once('close', () => resolve()));
      }
      if (step.chunkDelayMs) await wait(step.chunkDelayMs);
      if (res.destroyed) return;
      res.write(sseFrame(event));
    }
    res.end();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) send(res, 500, { error: { message: `double failed: ${String(error)}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    anthropicBaseUrl: `http://127.0.0.1:${port}`,
    openaiBaseUrl: `http://127.0.0.1:${port}/v1`,
    anthropic: endpoints['anthropic.messages'],
    openai: { chat: endpoints['openai.chat'], embeddings: endpoints['openai.embeddings'] },
    requests,
    reset() {
      Object.values(endpoints).forEach((endpoint) => endpoint.reset());
      requests.length = 0;
    },
    close() {
      timers.forEach((timer) => clearTimeout(timer));
      timers.clear();
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_double', 'x-request-id': 'req_double', ...headers });
  res.end(text);
}

/** Settings that point both providers' SDKs at the double (with a placeholder platform key). */
export function llmDoubleEnv(double: LlmDouble): Record<string, string> {
  return {
    ANTHROPIC_API_KEY: 'k',
    ANTHROPIC_BASE_URL: double.anthropicBaseUrl,
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: double.openaiBaseUrl,
  };
}
