import { createServer } from 'node:net';

export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly host: string,
  ) {
    super(
      `Port ${port} on ${host} is in use by another process. Stop it, or start Loci on another port: PORT=${port + 1} npm start.`,
    );
    this.name = 'PortInUseError';
  }
}

/**
 * A port another process listens on is found out before anything else starts: after opening
 * and migrating the store (seconds on the embedded default) the listen failed with EADDRINUSE
 * and a stack trace, and the embedded store had been opened for nothing. The port is bound and
 * let go at once; the app binds it again when it listens.
 */
export function ensurePortIsFree(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, host) : error),
    );
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
