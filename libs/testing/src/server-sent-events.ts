/** One server-sent event as a client reads it: its name and its data parsed as JSON. */
export interface ReadEvent {
  event: string;
  data: any;
}

/**
 * Reads a fetch response's server-sent events as they arrive (a real client's view, frames split
 * across network chunks included); ends when the server ends the response.
 */
export async function* serverSentEvents(response: Response): AsyncGenerator<ReadEvent> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
      const frame = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const lines = frame.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
      yield { event, data: data === '' ? undefined : JSON.parse(data) };
    }
  }
}
