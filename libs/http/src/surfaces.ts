/**
 * Loci speaks three error dialects, one per surface (DESIGN.md, Errors):
 * - `fastapi`: /v1/query, whose clients expect FastAPI bodies (`{"detail": ...}`);
 * - `gb`: /v1/gb/*, whose contract says `{"error": "..."}`;
 * - `generic`: everything else, `{"error":{"code","message"},"request_id"}`.
 */
export type ErrorSurface = 'fastapi' | 'gb' | 'generic';

export function errorSurfaceOf(path: string): ErrorSurface {
  const pathname = path.split('?')[0].replace(/\/+$/, '');
  if (pathname === '/v1/query') return 'fastapi';
  if (pathname.startsWith('/v1/gb/')) return 'gb';
  return 'generic';
}

/** Request body limits by route; the contracts set 64 KiB for questions and 1 MiB for remember. */
export function jsonBodyLimitOf(path: string): string {
  const pathname = path.split('?')[0].replace(/\/+$/, '');
  if (pathname === '/v1/query' || pathname === '/v1/gb/query') return '64kb';
  return '1mb';
}
