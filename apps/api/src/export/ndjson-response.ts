import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';

/**
 * Streams lines to the client as JSON Lines, reading the next lines only as the client takes
 * them (backpressure). A failure after the first byte cannot become an error response any
 * more: the connection is cut, so the client sees an incomplete transfer rather than an export
 * that looks whole (and the export's last line, `end`, is missing).
 */
export async function sendJsonLines(res: Response, lines: AsyncIterable<string>, filename: string): Promise<void> {
  res.status(200);
  res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
  res.setHeader('Cache-Control', 'no-store');
  try {
    await pipeline(Readable.from(lines), res);
  } catch {
    // pipeline has destroyed the response; the store error is the client's incomplete body.
    res.destroy();
  }
}
