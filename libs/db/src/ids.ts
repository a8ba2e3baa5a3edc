const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Ids arrive from URLs. A malformed one cannot name any row, so callers treat it as "not
 * found" instead of letting Postgres reject the cast (which would surface as a 500).
 */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
