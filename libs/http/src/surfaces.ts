/**
 * Loci speaks three error dialects, one per surface (DESIGN.md, Errors):
 * - `fastapi`: /v1/query, whose clients expect FastAPI bodies (`{"detail": ...}`);
 * - `gb`: /v1/gb/*, whose contract says `{"error": "..."}`;
 * - `generic`: everything else, `{"error":{"code","message"},"request_id"}`.
 */
export type ErrorSurface = 'fastapi' | 'gb' | 'generic';

export function errorSurfaceOf(path: string): ErrorSurface {
  const pathname = pathnameOf(path);
  if (pathname === '/v1/query') return 'fastapi';
  if (pathname.startsWith('/v1/gb/')) return 'gb';
  return 'generic';
}

const QUESTION_ROUTES = ['/v1/query', '/v1/gb/query'];

/** The contracts' body limits: 64 KiB for a question, 1 MiB for the rest (remember's texts). */
export const QUESTION_BODY_LIMIT_BYTES = 64 * 1024;
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The longest question any surface takes: what the question routes' body can carry (each
 * character is at least one byte of JSON), stated so a surface without that body (MCP) holds it too.
 */
export const QUESTION_MAX_CHARS = QUESTION_BODY_LIMIT_BYTES;

/** A route's body limit in bytes: what its JSON body may weigh, and what an MCP tool calling it may be given. */
export function bodyLimitBytesOf(path: string): number {
  return QUESTION_ROUTES.includes(pathnameOf(path)) ? QUESTION_BODY_LIMIT_BYTES : BODY_LIMIT_BYTES;
}

/**
 * The body parser's limit by route, or undefined where the route reads its own body: /mcp's
 * transport does, with its own limit, so that a refusal is a JSON-RPC error an agent understands;
 * so do MCP's OAuth endpoints under /oauth/.
 */
export function jsonBodyLimitOf(path: string): '64kb' | '1mb' | undefined {
  if (pathnameOf(path) === '/mcp') return undefined;
  // The OAuth endpoints are the MCP SDK's handlers: they read their own bodies (form or JSON) and
  // answer a bad one in OAuth's error shape.
  if (pathnameOf(path).startsWith('/oauth/')) return undefined;
  return bodyLimitBytesOf(path) === QUESTION_BODY_LIMIT_BYTES ? '64kb' : '1mb';
}

function pathnameOf(path: string): string {
  return path.split('?')[0].replace(/\/+$/, '');
}
