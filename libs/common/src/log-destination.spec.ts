import { PassThrough } from 'node:stream';
import pino from 'pino';
import { logDestination } from './log-destination';

function written(format: 'json' | 'pretty', log: (logger: pino.Logger) => void): string {
  const terminal = new PassThrough();
  let text = '';
  terminal.on('data', (chunk: Buffer) => (text += chunk.toString()));
  log(pino({ level: 'info' }, logDestination(format, undefined, terminal) as pino.DestinationStream));
  return text;
}

describe('logDestination', () => {
  it('writes JSON lines when asked for json', () => {
    const text = written('json', (logger) => logger.info({ context: 'Loci' }, 'listening'));
    expect(JSON.parse(text)).toMatchObject({ level: 30, msg: 'listening', context: 'Loci' });
  });

  it('writes one readable line a record when asked for pretty: time, level, context and message, a request in brief', () => {
    const text = written('pretty', (logger) => {
      logger.info({ context: 'Loci' }, 'listening on http://127.0.0.1:3000');
      logger.info({ req: { method: 'GET', url: '/v1/me' }, res: { statusCode: 401 }, responseTime: 17, requestId: 'r1' }, 'request completed');
    });
    const lines = text.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: \[Loci\] listening on http:\/\/127\.0\.0\.1:3000$/);
    expect(lines[1]).toMatch(/INFO: request completed GET \/v1\/me → 401 in 17 ms$/);
    expect(text).not.toContain('r1');
  });

  it('hands a given destination through, whatever the format', () => {
    const mine = new PassThrough();
    expect(logDestination('pretty', mine)).toBe(mine);
  });
});
