/** SQLSTATE of the error, looking through drizzle's wrapper (DrizzleQueryError.cause). */
export function sqlState(error: unknown): string | undefined {
  for (let current = error as { code?: unknown; cause?: unknown } | undefined; current; ) {
    if (typeof current.code === 'string' && /^[0-9A-Z]{5}$/.test(current.code)) return current.code;
    current = current.cause as typeof current;
  }
  return undefined;
}

export const isUniqueViolation = (error: unknown): boolean => sqlState(error) === '23505';
