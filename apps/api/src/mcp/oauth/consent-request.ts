import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyScope } from '@loci/db';

/** How long the consent page may stay open before its form is refused. */
export const CONSENT_TTL_MS = 10 * 60 * 1000;

/**
 * The authorization request the SDK's /oauth/authorize handler checked (client, exact registered
 * redirect URI, PKCE challenge), carried through the consent form signed, so the form's POST can
 * neither change where the code goes nor what it is bound to. `nonce` is also set as a cookie
 * (SameSite=Strict) on the page: a form posted from another site lacks it (CSRF).
 */
export interface ConsentRequest {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: ApiKeyScope[];
  state?: string;
  resource: string;
  nonce: string;
  expiresAt: number;
}

export const newNonce = () => randomBytes(16).toString('base64url');

export function signConsentRequest(request: ConsentRequest, key: Buffer): string {
  const payload = Buffer.from(JSON.stringify(request)).toString('base64url');
  return `${payload}.${mac(payload, key)}`;
}

/** The request, when the signature is ours and it has not expired; undefined otherwise. */
export function openConsentRequest(signed: unknown, key: Buffer, now = Date.now()): ConsentRequest | undefined {
  if (typeof signed !== 'string') return undefined;
  const [payload, signature, extra] = signed.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = Buffer.from(mac(payload, key));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  const request = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as ConsentRequest;
  return request.expiresAt > now ? request : undefined;
}

/** The signing key: derived from JWT_SECRET, so no new secret to manage, and used for nothing else. */
export const consentKeyFrom = (jwtSecret: string): Buffer => createHmac('sha256', jwtSecret).update('loci mcp oauth consent').digest();

const mac = (payload: string, key: Buffer) => createHmac('sha256', key).update(payload).digest('base64url');
