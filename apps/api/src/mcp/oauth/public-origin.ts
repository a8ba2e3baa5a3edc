import type { Request } from 'express';
import type { HttpSettings } from '@loci/config';

/**
 * The origin clients reach Loci at: LOCI_PUBLIC_URL when set (checked at boot), else this
 * request's own scheme and Host (X-Forwarded-Proto counts only behind LOCI_TRUST_PROXY). The
 * metadata a client reads then names the address it used, which is all a client can check; a
 * forged Host only misleads the client that forged it.
 */
export function publicOrigin(req: Request, http: HttpSettings): string {
  return http.publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

/** The MCP server's resource identifier (RFC 8707/9728): where its tokens may be spent. */
export const mcpResourceOf = (origin: string): string => `${origin}/mcp`;

/** OAuth 2.1 asks for TLS, except on a loopback host (a local client on its own machine). */
export function isServableIssuer(origin: string): boolean {
  try {
    const url = new URL(origin);
    return url.protocol === 'https:' || (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname));
  } catch {
    return false;
  }
}
