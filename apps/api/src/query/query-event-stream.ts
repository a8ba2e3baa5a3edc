import { Logger } from '@nestjs/common';
import type { Response } from 'express';
import { LimitExceededError } from '@loci/common';
import { errorSummary, loggableError } from '@loci/db';
import { isModelCallError } from '@loci/llm';
import { problemOf, renderErrorBody } from '@loci/http';
import type { AnswerSink } from './query.service';
import type { QueryResponse, SourceItem } from './query.dto';
import { abortedWhenClientLeaves } from '../client-gone';
import type { RefusalCounter } from '../limits/refusal-counter';

/**
 * A `"stream": true` /v1/query answer as Server-Sent Events. Each event's data is a JSON object
 * holding one part of the QueryResponse under its own name, so a client that merges them and
 * joins the answer pieces has the response a non-streamed question gets:
 *
 *   event: sources   data: {"sources": [...]}        once, first
 *   event: answer    data: {"text": "..."}           as the answer is written (none when empty)
 *   event: context   data: {"context": {...}}        context mode only
 *   event: metadata  data: {"metadata": {...}, "cited": ["1", ...]}   last: the stream is complete
 *   event: error     data: {"status": 502, "detail": ...}            instead of metadata, on failure
 *
 * Nothing is sent before the sources: a question refused at admission or failing in retrieval
 * still gets its ordinary status and JSON body. Once the events have begun, a failure can only
 * be an `error` event (the status line is gone), in the v1 `detail` shape with the status it
 * would have had.
 */
export class QueryEventStream implements AnswerSink {
  private readonly logger = new Logger('QueryEventStream');
  /** Aborted when the client went away before the last event was written. */
  readonly signal: AbortSignal;
  private sourcesSent = false;
  private textSent = false;

  constructor(
    private readonly res: Response,
    private readonly requestId: string,
    /** A refusal sent as an `error` event never reaches the HTTP error path, where refusals are counted. */
    private readonly refusals: { counter: RefusalCounter; tenantId: string | null },
  ) {
    this.signal = abortedWhenClientLeaves(res, () => new Error('the client disconnected'));
  }

  /** Whether events have begun (a failure can no longer be a status). */
  get started(): boolean {
    return this.res.headersSent;
  }

  sources(sources: SourceItem[]): void {
    this.sourcesSent = true;
    this.send('sources', { sources });
  }

  text(piece: string): void {
    if (piece === '') return;
    this.textSent = true;
    this.send('answer', { text: piece });
  }

  /** The rest of a finished response: what was not streamed already, then the metadata. */
  finish(response: QueryResponse): void {
    if (!this.sourcesSent) this.sources(response.sources);
    if (!this.textSent) this.text(response.answer);
    if (response.context) this.send('context', { context: response.context });
    this.send('metadata', { metadata: response.metadata, cited: response.sources.map((s) => s.reference_id) });
    this.end();
  }

  async fail(error: unknown): Promise<void> {
    await this.refusals.counter.countIfRefusal(error, this.refusals.tenantId);
    if (this.signal.aborted) return this.end(); // nobody is listening; the call was stopped
    const problem = problemOf(error, 'fastapi');
    if (problem.status >= 500) {
      this.logger.error({ err: loggableError(error), requestId: this.requestId }, `${problem.code} mid-stream: ${errorSummary(error)}`);
    }
    const detail =
      error instanceof LimitExceededError ? { detail: error.body } : (renderErrorBody('fastapi', problem, this.requestId) as { detail: unknown });
    this.send('error', { status: problem.status, ...detail, ...(isModelCallError(error) ? { failure: error.failure } : {}) });
    this.end();
  }

  private send(event: string, data: unknown): void {
    if (this.res.writableEnded || this.res.destroyed) return;
    if (!this.res.headersSent) this.open();
    this.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  private open(): void {
    this.res.status(200);
    this.res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    // no-transform: a compressing proxy would hold the events back to fill its buffers.
    this.res.setHeader('Cache-Control', 'no-cache, no-transform');
    this.res.setHeader('X-Accel-Buffering', 'no');
    this.res.flushHeaders();
  }

  private end(): void {
    if (!this.res.writableEnded && !this.res.destroyed) this.res.end();
  }
}
