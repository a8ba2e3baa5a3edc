import { useCallback, useEffect, useRef, useState } from 'react';
import type { Schemas } from '@loci/client';
import { ApiError, askStreamed } from '../api';

type QueryResponse = Schemas['QueryResponse'];
export type Source = QueryResponse['sources'][number];
export type Context = NonNullable<QueryResponse['context']>;

/**
 * Where a question stands: `retrieving` until the sources come (nothing is written before),
 * `writing` while the answer arrives, then `done` (the metadata came: the answer is the one a
 * non-streamed question gets), `stopped` (by the Stop button) or `failed` (the error says why).
 */
export type Phase = 'idle' | 'retrieving' | 'writing' | 'done' | 'stopped' | 'failed';

export interface PartialAnswer {
  /** The answer's pieces joined so far. */
  text: string;
  /** While the model writes, every passage it was given; once done, the ones the answer cites. */
  sources: Source[];
  metadata: QueryResponse['metadata'] | null;
  context: Context | null;
}

const EMPTY: PartialAnswer = { text: '', sources: [], metadata: null, context: null };

/**
 * A question to /v1/query as a stream (record 0078): the answer grows as its events arrive, and
 * `stop` aborts the request (the server stops the model), keeping what was written. Asking again
 * or leaving the screen stops the question still running.
 */
export function useStreamedAnswer() {
  const [phase, setPhase] = useState<Phase>('idle');
  const [answer, setAnswer] = useState<PartialAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const running = useRef<AbortController | null>(null);
  useEffect(() => () => running.current?.abort(), []);

  const ask = useCallback(async (body: Omit<Schemas['QueryRequest'], 'stream'>) => {
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setPhase('retrieving');
    setAnswer(null);
    setError(null);
    // Events of a question stopped or replaced are dropped, even those already read.
    const current = () => running.current === controller;
    const merge = (change: (had: PartialAnswer) => Partial<PartialAnswer>) => setAnswer((had) => ({ ...(had ?? EMPTY), ...change(had ?? EMPTY) }));
    try {
      for await (const { event, data } of askStreamed(body, controller.signal)) {
        if (!current()) return;
        if (event === 'sources') {
          merge(() => ({ sources: data.sources }));
          setPhase('writing');
        } else if (event === 'answer') merge((had) => ({ text: had.text + data.text }));
        else if (event === 'context') merge(() => ({ context: data.context }));
        else if (event === 'metadata') {
          // The last event: the sources the answer cites, as a non-streamed answer lists them.
          const cited = new Set(data.cited);
          merge((had) => ({ metadata: data.metadata, sources: had.sources.filter((s) => cited.has(s.reference_id)) }));
          setPhase('done');
          return;
        }
      }
      if (current()) throw new ApiError(0, 'The answer was cut off: the connection closed before it was complete.', null);
    } catch (err) {
      if (!current()) return; // stopped (the abort's own error) or replaced
      setError(err);
      setPhase('failed');
    } finally {
      if (current()) running.current = null;
    }
  }, []);

  const stop = useCallback(() => {
    if (!running.current) return;
    running.current.abort();
    running.current = null;
    setPhase('stopped');
  }, []);

  return { phase, answer, error, ask, stop, busy: phase === 'retrieving' || phase === 'writing' };
}
