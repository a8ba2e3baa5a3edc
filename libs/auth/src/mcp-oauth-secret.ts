import { createHash, randomBytes } from 'node:crypto';

/**
 * MCP's OAuth secrets: access tokens `loci-mcp-at_…`, refresh tokens `loci-mcp-rt_…` and
 * authorization codes, each 32 random bytes (base64url). Only their sha256 is stored: a fast hash
 * is right for 256 bits of entropy (as for API keys), and the row is found by it. The prefixes
 * tell them from API keys (`loci_`) and dashboard JWTs at a glance, so the guard knows which
 * check a credential needs.
 */
export const MCP_ACCESS_TOKEN_MARKER = 'loci-mcp-at_';
export const MCP_REFRESH_TOKEN_MARKER = 'loci-mcp-rt_';

export const newMcpSecret = (marker = ''): string => marker + randomBytes(32).toString('base64url');
export const hashMcpSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');
export const looksLikeMcpAccessToken = (credential: string): boolean => credential.startsWith(MCP_ACCESS_TOKEN_MARKER);
