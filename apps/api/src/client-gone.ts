import type { Response } from 'express';

/**
 * A signal aborted with `reason()` when the client closes the connection before its answer is
 * written (closed after the last byte is an ordinary end and aborts nothing): work done only for
 * that client, a stream or a wait, stops.
 */
export function abortedWhenClientLeaves(res: Response, reason: () => Error): AbortSignal {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort(reason());
  });
  return gone.signal;
}
