import { setTimeout as delay } from 'node:timers/promises';
import { createLociClient, errorMessage } from '@loci/client';

/** Where the tenant graph's bulk load is (GET /v1/bulk-load). */
export type BulkLoadState = 'none' | 'loading' | 'indexing' | 'indexed';

export interface BulkModeOptions {
  url: string;
  apiKey: string;
  pollMs: number;
  signal?: AbortSignal;
}

/** The server refused or could not answer a bulk-mode call: the message is for the user. */
export class BulkModeError extends Error {}

/**
 * The CLI's side of bulk mode (`--bulk`): begin the tenant graph's bulk load before the
 * uploads, finish it after them, and wait while the server builds the graph's own indexes.
 */
export function bulkMode(options: BulkModeOptions) {
  const api = createLociClient({ baseUrl: options.url.replace(/\/+$/, ''), apiKey: options.apiKey, headers: { accept: 'application/json' } });
  const stateOf = async (sent: Promise<{ data?: { state: BulkLoadState }; error?: unknown; response: Response }>, what: string) => {
    let answer: Awaited<typeof sent>;
    try {
      answer = await sent;
    } catch (error) {
      throw new BulkModeError(`${what}: cannot reach ${options.url} (${error instanceof Error ? error.message : String(error)})`);
    }
    if (!answer.response.ok || !answer.data) {
      throw new BulkModeError(`${what}: HTTP ${answer.response.status}: ${errorMessage(answer.error) ?? answer.response.statusText}`);
    }
    return answer.data.state;
  };
  return {
    begin: () => stateOf(api.POST('/v1/bulk-load', { signal: options.signal }), 'bulk mode could not begin'),
    finish: () => stateOf(api.POST('/v1/bulk-load/finish', { signal: options.signal }), 'bulk mode could not finish'),
    /** Polls until the graph's own indexes are built, or `timeoutMs` passes (answers the last state seen). */
    async indexed(timeoutMs: number): Promise<BulkLoadState> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const state = await stateOf(api.GET('/v1/bulk-load', { signal: options.signal }), 'bulk mode state');
        if (state !== 'indexing' || Date.now() >= until) return state;
        await delay(options.pollMs, undefined, { signal: options.signal });
      }
    },
  };
}
