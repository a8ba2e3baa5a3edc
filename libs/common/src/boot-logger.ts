import type { LoggerService } from '@nestjs/common';
import pino, { Logger as Pino } from 'pino';

/**
 * Nest's logger from process start until the app's own (nestjs-pino's, which exists only once
 * its module is built) takes over in configureApp. Buffering the boot lines instead would stamp
 * every one of them with the moment of the flush; written here, each carries its real time, in
 * the same JSON shape and to the same destination as the request logs that follow.
 */
export class BootLogger implements LoggerService {
  private readonly pino: Pino;

  constructor(level: string, destination: NodeJS.WritableStream = process.stdout) {
    this.pino = pino({ level }, destination as pino.DestinationStream);
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    // Nest passes (message, stack, context); the stack stays in the record, not the message.
    const context = typeof rest[rest.length - 1] === 'string' && rest.length > 1 ? rest.pop() : rest.length === 1 ? rest.pop() : undefined;
    const stack = typeof rest[0] === 'string' ? rest[0] : undefined;
    this.pino.error({ context, ...(stack ? { stack } : {}) }, messageText(message));
  }

  private write(level: 'info' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, rest: unknown[]): void {
    const context = typeof rest[rest.length - 1] === 'string' ? rest[rest.length - 1] : undefined;
    this.pino[level]({ context }, messageText(message));
  }
}

function messageText(message: unknown): string {
  if (message instanceof Error) return message.message;
  return typeof message === 'string' ? message : JSON.stringify(message);
}
