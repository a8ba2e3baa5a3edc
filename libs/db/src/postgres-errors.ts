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
