import { DrizzleQueryError } from 'drizzle-orm/errors';
import { StoreUnavailableError } from '@loci/common';

/** SQLSTATE of the error, looking through drizzle's wrapper (DrizzleQueryError.cause). */
export function sqlState(error: unknown): string | undefined {
  for (let current = error as { code?: unknown; cause?: unknown } | undefined; current; ) {
    if (typeof current.code === 'string' && /^[0-9A-Z]{5}$/.test(current.code)) return current.code;
    current = current.cause as typeof current;
  }
  return undefined;
}

export const isUniqueViolation = (error: unknown): boolean => sqlState(error) === '23505';

/**
 * The transaction lost a lock conflict (chosen as a deadlock's victim, or a serialization
 * failure): nothing was written, and running it again can succeed.
 */
export const isTransactionConflict = (error: unknown): boolean => {
  const state = sqlState(error);
  return state === '40P01' || state === '40001';
};

/** The database's own message ("deadlock detected"), without drizzle's query and parameters. */
export function databaseMessage(error: unknown): string | undefined {
  for (let current = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined; current; ) {
    if (typeof current.code === 'string' && /^[0-9A-Z]{5}$/.test(current.code) && typeof current.message === 'string') {
      return `${current.message} (${current.code})`;
    }
    current = current.cause as typeof current;
  }
  return undefined;
}

/**
 * SQLSTATEs that say the store cannot serve, whatever the statement: connection exceptions
 * (08), the server shutting down or not yet accepting connections (57P01–57P03), insufficient
 * resources (53: too many connections, disk full, out of memory) and system or I/O errors (58).
 */
const UNAVAILABLE_STATE = /^(08[0-9A-Z]{3}|57P0[123]|53[0-9A-Z]{3}|58[0-9A-Z]{3})$/;

/**
 * node-postgres and pg-pool's own words for a connection that broke or never came, and
 * PGlite's for an instance that is closed. "not currently accepting connections" is the
 * server refusing a database (ALLOW_CONNECTIONS false), whose SQLSTATE 55000 is too general.
 */
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect|PGlite is clos(ed|ing)|PGlite failed to initialize)|is not currently accepting connections/;

/** Socket errors: from the store they mean it is unreachable (Redis has its own, see guarded()). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

const STORE_FAULT = Symbol('loci.storeFault');

/**
 * Marks an error as raised by the store's connection (PostgresDatabase marks pool checkouts), so
 * a bare socket error from it is told apart from the same socket error from Redis.
 */
export function markStoreFault<T>(error: T): T {
  if (typeof error === 'object' && error !== null) Object.defineProperty(error, STORE_FAULT, { value: true });
  return error;
}

/**
 * The store could not answer (connection lost or refused, shutting down, PGlite closed or
 * aborted), as opposed to the statement failing: the request deserves a 503 store_unavailable
 * and a retry, never a 401 or a 500. Looks through drizzle's wrapper and any `cause`.
 */
export function isStoreUnavailable(error: unknown): boolean {
  let fromStore = false;
  let current: unknown = error;
  for (let depth = 0; typeof current === 'object' && current !== null && depth < 8; depth++) {
    if (current instanceof StoreUnavailableError) return true;
    if (current instanceof DrizzleQueryError || (current as Record<symbol, unknown>)[STORE_FAULT]) fromStore = true;
    if (current instanceof WASM_RUNTIME_ERROR) return true; // PGlite's WebAssembly aborted
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && UNAVAILABLE_STATE.test(code)) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
    if (fromStore && typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    current = cause;
  }
  return false;
}

// The global's type is in the DOM lib, which this project does not load.
const WASM_RUNTIME_ERROR = (globalThis as unknown as { WebAssembly: { RuntimeError: ErrorConstructor } }).WebAssembly.RuntimeError;
