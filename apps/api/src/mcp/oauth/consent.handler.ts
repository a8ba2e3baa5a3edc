import type { Request, Response } from 'express';
import { LoginThrottleService } from '@loci/auth';
import { LimitExceededError, UnauthenticatedError } from '@loci/common';
import { CONSENT_COOKIE, sendConsentError, sendConsentPage } from './consent-page';
import { openConsentRequest } from './consent-request';
import type { McpOAuthProvider } from './mcp-oauth.provider';

/**
 * POST /oauth/consent: the user's answer to the consent page. The form carries the signed
 * authorization request (so the code goes only where the SDK's authorize handler agreed) and the
 * cookie set with the page must match its nonce (a form posted from another site has none).
 * Approval needs the user's Loci email and password, checked and throttled as a login is; an
 * operator has no tenant, so no MCP access to give.
 */
export function consentHandler(provider: McpOAuthProvider, logins: LoginThrottleService) {
  return async (req: Request, res: Response): Promise<void> => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    let request;
    try {
      request = openConsentRequest(body.request, provider.consentKey);
    } catch {
      request = undefined; // a payload that is not ours (or not JSON) is no request
    }
    if (!request) return sendConsentError(res, 400, 'This authorization request is not valid or has expired. Start again from your MCP client.');
    if (cookieOf(req, CONSENT_COOKIE) !== request.nonce) {
      return sendConsentError(res, 403, 'This form was not sent from the page Loci showed you (or cookies are off). Start again from your MCP client.');
    }
    const client = await provider.clientsStore.getClient(request.clientId);
    if (!client) return sendConsentError(res, 400, 'The client is no longer registered. Start again from your MCP client.');
    res.clearCookie(CONSENT_COOKIE, { path: '/oauth' });
    const back = new URL(request.redirectUri);
    if (request.state !== undefined) back.searchParams.set('state', request.state);

    if (body.decision !== 'approve') {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'The user denied the request.');
      return res.redirect(303, back.href);
    }
    const again = (status: number, problem: string) =>
      sendConsentPage(res.cookie(CONSENT_COOKIE, request.nonce, { httpOnly: true, sameSite: 'strict', secure: req.secure, path: '/oauth' }), status, {
        clientName: client.client_name ?? client.client_id,
        redirectUri: request.redirectUri,
        scopes: request.scopes,
        signedRequest: String(body.request),
        problem,
      });
    const email = typeof body.email === 'string' ? body.email.trim() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    if (email === '' || password === '' || email.length > 320 || password.length > 1024) return again(400, 'Enter your Loci email and password.');

    let user;
    try {
      user = await logins.authenticate(email, password, req.ip);
    } catch (error) {
      if (error instanceof UnauthenticatedError) return again(401, 'Invalid email or password.');
      if (error instanceof LimitExceededError) {
        res.setHeader('Retry-After', String(error.retryAfterSeconds));
        return error.status === 503
          ? again(503, 'Sign-in cannot be checked right now. Try again in a few seconds.')
          : again(429, `Too many failed sign-ins. Try again in ${error.retryAfterSeconds} seconds.`);
      }
      throw error;
    }
    const tenantId = user.tenantId;
    if (tenantId === null) return again(403, 'Operator accounts have no tenant, so there is no MCP access to give. Sign in as a member or admin of a tenant.');
    const code = await provider.createCode(request, { ...user, tenantId });
    back.searchParams.set('code', code);
    res.redirect(303, back.href);
  };
}

function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.header('cookie') ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
