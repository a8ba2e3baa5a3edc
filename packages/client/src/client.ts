import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './schema';

/**
 * Typed by the JSON bodies: /v1/query's 200 also lists its event stream (text/event-stream),
 * which `askStream` reads; a JSON call's data is never that string.
 */
export type LociClient = Client<paths, 'application/json'>;

export interface LociClientOptions {
  /** The server, e.g. `http://127.0.0.1:3000` (no trailing path); `''` for the same origin in a browser. */
  baseUrl: string;
  /** A dashboard JWT (from POST /v1/auth/login), sent as `Authorization: Bearer`; a function is asked on every request. */
  token?: string | (() => string | undefined | null);
  /** A tenant API key, sent as `X-API-Key`. */
  apiKey?: string;
  /** Another fetch (a wrapper that explains connection failures, a test's). */
  fetch?: ClientOptions['fetch'];
  headers?: Record<string, string>;
}

/**
 * A client for every operation of the Loci API, typed from its OpenAPI document:
 * `await client.GET('/v1/documents/{documentId}', { params: { path: { documentId } } })`
 * answers `{ data }` or `{ error }` (the error body in its route's shape) and the `response`.
 */
export function createLociClient(options: LociClientOptions): LociClient {
  const client = createClient<paths, 'application/json'>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    headers: options.headers,
  });
  client.use({
    onRequest({ request }) {
      const token = typeof options.token === 'function' ? options.token() : options.token;
      if (token && !request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${token}`);
      if (options.apiKey && !request.headers.has('X-API-Key')) request.headers.set('X-API-Key', options.apiKey);
      return request;
    },
  });
  return client;
}
