import type { Request } from 'express';

/** The presented credential: `X-API-Key`, else the `Authorization: Bearer` token. */
export function credentialFrom(req: Request): string | undefined {
  const apiKey = req.header('x-api-key')?.trim();
  if (apiKey) return apiKey;
  const authorization = req.header('authorization')?.trim();
  const match = authorization?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1];
}
