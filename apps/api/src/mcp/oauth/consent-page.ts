import type { Response } from 'express';
import type { ApiKeyScope } from '@loci/db';

export const CONSENT_COOKIE = 'loci_mcp_consent';
export const CONSENT_PATH = '/oauth/consent';

const SCOPE_WORDS: Record<ApiKeyScope, string> = {
  read: "read: ask your tenant's knowledge graph and query memories (the ask and query tools)",
  write: 'write: remember texts and forget whole datasets (the remember and forget tools)',
};

export interface ConsentView {
  clientName: string;
  redirectUri: string;
  scopes: ApiKeyScope[];
  signedRequest: string;
  /** Said above the form when a first try failed (wrong password, operator account). */
  problem?: string;
}

/**
 * The consent page: plain HTML, no script and no style of its own, so it runs under a policy that
 * allows nothing but posting its form here and, after that post, the redirect to the client.
 */
export function sendConsentPage(res: Response, status: number, view: ConsentView): void {
  res
    .status(status)
    .setHeader('Content-Security-Policy', consentPolicy(view.redirectUri))
    .setHeader('Cache-Control', 'no-store')
    .type('html')
    .send(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Connect ${escape(view.clientName)} to Loci</title></head>
<body>
<main>
<h1>Connect ${escape(view.clientName)} to Loci</h1>
<p><strong>${escape(view.clientName)}</strong> asks to use Loci's MCP tools as you, in your tenant, with your role. It will be able to:</p>
<ul>
${view.scopes.map((scope) => `<li>${escape(SCOPE_WORDS[scope])}</li>`).join('\n')}
</ul>
<p>After you approve, you are sent back to <code>${escape(view.redirectUri)}</code>. You can end its access by disabling the user or changing your password; the client can revoke it itself.</p>
${view.problem ? `<p role="alert"><strong>${escape(view.problem)}</strong></p>` : ''}
<form method="post" action="${CONSENT_PATH}">
<input type="hidden" name="request" value="${escape(view.signedRequest)}">
<p><label>Email <input type="email" name="email" autocomplete="username" required></label></p>
<p><label>Password <input type="password" name="password" autocomplete="current-password" required></label></p>
<p><button type="submit" name="decision" value="approve">Sign in and allow</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button></p>
</form>
</main>
</body>
</html>
`);
}

/** A page that ends the flow here (the form expired, was forged, or its signature is not ours). */
export function sendConsentError(res: Response, status: number, message: string): void {
  res
    .status(status)
    .setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'; base-uri 'none'")
    .setHeader('Cache-Control', 'no-store')
    .type('html')
    .send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Loci: authorization failed</title></head>
<body><main><h1>Authorization failed</h1><p>${escape(message)}</p></main></body></html>
`);
}

/** Nothing but this page's own form; browsers apply form-action to the redirect that follows the post too. */
function consentPolicy(redirectUri: string): string {
  const target = new URL(redirectUri);
  // An http(s) redirect is allowed by its origin; a native app's custom scheme by its scheme.
  const source = ['http:', 'https:'].includes(target.protocol) ? target.origin : target.protocol;
  return `default-src 'none'; form-action 'self' ${source}; frame-ancestors 'none'; base-uri 'none'`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
