import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { components } from './schema';
import type { LociClient } from './client';
import { LociApiError } from './errors';

type QueryResponse = components['schemas']['QueryResponse'];
type QueryRequest = components['schemas']['QueryRequest'];

/**
 * One event of a streamed answer (`"stream": true` on POST /v1/query), its data parsed. Merged,
 * the events are the QueryResponse a non-streamed question gets: the sources first, the answer
 * in pieces as the model writes it, the context in context mode, then the metadata (the stream
 * is complete) or an error (the status it would have had, in the /v1/query `detail` shape).
 */
export type QueryStreamEvent =
  | { event: 'sources'; data: { sources: QueryResponse['sources'] } }
  | { event: 'answer'; data: { text: string } }
  | { event: 'context'; data: { context: NonNullable<QueryResponse['context']> } }
  | { event: 'metadata'; data: { metadata: QueryResponse['metadata']; cited: Array<string | null> } }
  | { event: 'error'; data: { status: number; detail: unknown; failure?: string } };

/**
 * Asks a question and yields its answer's events as they arrive. A refusal before the stream
 * began (401, 402, 422, 429, ...) is thrown as a LociApiError, as `unwrap` does; one after it
 * began is the `error` event. Stop early with `signal` (or by leaving the loop).
 *
 *   for await (const { event, data } of askStream(loci, { query: 'Where does Alice work?' })) {
 *     if (event === 'answer') process.stdout.write(data.text);
 *   }
 */
export async function* askStream(
  client: LociClient,
  body: Omit<QueryRequest, 'stream'>,
  options: { signal?: AbortSignal } = {},
): AsyncGenerator<QueryStreamEvent> {
  const { data, error, response } = await client.POST('/v1/query', {
    body: { ...body, stream: true },
    parseAs: 'stream',
    signal: options.signal,
  });
  if (!response.ok || !data) throw new LociApiError(response.status, error);
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    throw new LociApiError(response.status, undefined, `expected text/event-stream, got ${response.headers.get('content-type')}`);
  }
  const parsed: QueryStreamEvent[] = [];
  const parser = createParser({ onEvent: (message: EventSourceMessage) => parsed.push(toEvent(message)) });
  const decoder = new TextDecoder();
  const reader = data.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      while (parsed.length > 0) yield parsed.shift()!;
    }
  } finally {
    // Leaving the loop early cancels the response, so the server sees the client go.
    await reader.cancel().catch(() => undefined);
  }
}

function toEvent(message: EventSourceMessage): QueryStreamEvent {
  // The server names every event it sends (QueryEventStream); the data's shape follows the name.
  return { event: (message.event ?? 'message') as QueryStreamEvent['event'], data: JSON.parse(message.data) };
}
