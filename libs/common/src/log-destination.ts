import PinoPretty from 'pino-pretty';

export type LogFormat = 'json' | 'pretty';

/**
 * Where log lines go: JSON lines to stdout (what a collector reads), or, on a terminal outside
 * production, pino-pretty's readable lines (time, level, the message, a request's method, URL,
 * status and time). Pretty printing happens in this process, synchronously, so lines keep their
 * order with what else the process writes; it is for a person watching, not for throughput.
 */
export function logDestination(format: LogFormat, destination?: NodeJS.WritableStream, terminal: NodeJS.WritableStream = process.stdout): NodeJS.WritableStream {
  if (destination) return destination;
  if (format === 'json') return terminal;
  return PinoPretty({
    destination: terminal,
    colorize: Boolean((terminal as { isTTY?: boolean }).isTTY),
    sync: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,context,req,res,requestId,clientRequestId,responseTime,route',
    messageFormat: '{if context}[{context}] {end}{msg}{if req.method} {req.method} {req.url} → {res.statusCode} in {responseTime} ms{end}',
    singleLine: true,
  });
}
