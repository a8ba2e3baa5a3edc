import { createHash, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { createApiKey, createTenant, createUser, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

const REDIRECT_URL = 'http://127.0.0.1:9/callback';

/** What a real MCP client keeps between runs, in memory; the browser is the test, playing the user. */
class TestOAuthProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  authorizationUrl?: URL;
  constructor(private readonly scope?: string) {}
  get redirectUrl() {
    return REDIRECT_URL;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test Agent',
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.scope ? { scope: this.scope } : {}),
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier!;
  }
}

/**
 * MCP's authorization (issue 40.7), driven by the official SDK client's OAuth support against the
 * listening app: discovery from the 401, dynamic registration, consent by a Loci user, PKCE, the
 * tools in the user's tenant; and what must be refused.
 */
describe('MCP OAuth: standard MCP clients connect', () => {
  let t: TestApp;
  let baseUrl: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startTestApp({});
    await t.app.listen(0, '127.0.0.1');
    baseUrl = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  /** The user at the consent page: opens it, signs in and approves (or denies); answers the page's reply. */
  async function consent(authorizationUrl: URL | string, user: { email: string; password: string }, decision = 'approve') {
    const page = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(page.status).toBe(200);
    const html = await page.text();
    const cookie = page.headers.get('set-cookie')!.split(';')[0];
    const signed = html.match(/name="request" value="([^"]+)"/)![1];
    return fetch(`${baseUrl}/oauth/consent`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ request: signed.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))), email: user.email, password: user.password, decision }),
    });
  }

  /** The whole flow, as an MCP client does it: 401, discovery, registration, authorize, consent, code, token, connect. */
  async function connectAs(user: TestUser, scope?: string) {
    const provider = new TestOAuthProvider(scope);
    const first = new Client({ name: 'loci-oauth-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { authProvider: provider });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.info?.client_id).toBeDefined();
    const answer = await consent(provider.authorizationUrl!, user);
    expect(answer.status).toBe(303);
    const back = new URL(answer.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(REDIRECT_URL);
    expect(back.searchParams.get('state')).toBe(provider.authorizationUrl!.searchParams.get('state'));
    await transport.finishAuth(back.searchParams.get('code')!);
    const client = new Client({ name: 'loci-oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { authProvider: provider }));
    clients.push(client);
    return { client, provider, token: provider.saved!.access_token };
  }

  async function call(client: Client, name: string, args: Record<string, unknown>) {
    const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ text: string }>; isError?: boolean };
    const text = result.content[0]?.text ?? '';
    let value: any = text;
    try {
      value = JSON.parse(text);
    } catch {
      // an error message
    }
    return { isError: result.isError ?? false, text, value };
  }

  const rpc = (token: string, method: string, params?: object) =>
    fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  const listTools = (token: string) => rpc(token, 'tools/list');

  /** Registration, authorize and consent by hand, for the refusals the SDK client would never provoke. */
  async function codeByHand(user: { email: string; password: string }, scope?: string) {
    const registered = await fetch(`${baseUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'by hand', redirect_uris: [REDIRECT_URL], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(201);
    const client = (await registered.json()) as { client_id: string; client_secret?: string };
    expect(client.client_secret).toBeUndefined();
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${baseUrl}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URL,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'xyz',
      ...(scope ? { scope } : {}),
    }).toString();
    const answer = await consent(authorize, user);
    return { clientId: client.client_id, verifier, answer, code: new URL(answer.headers.get('location') ?? REDIRECT_URL).searchParams.get('code') };
  }

  const exchange = (clientId: string, code: string, verifier: string) =>
    fetch(`${baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT_URL }),
    });

  it('answers /mcp without credentials 401 naming its resource metadata, and serves both metadata documents', async () => {
    const refused = await fetch(`${baseUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
    // Loci's own error shape, as every route's 401, with the spec's challenge in the header.
    expect(await refused.json()).toMatchObject({ error: { code: 'unauthenticated' } });
    expect(refused.headers.get('www-authenticate')).toContain(`resource_metadata="${baseUrl}/.well-known/oauth-protected-resource/mcp"`);
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const metadata = await (await fetch(`${baseUrl}${path}`)).json();
      expect(metadata).toMatchObject({ resource: `${baseUrl}/mcp`, authorization_servers: [baseUrl], scopes_supported: ['read', 'write'] });
    }
    const server = await (await fetch(`${baseUrl}/.well-known/oauth-authorization-server`)).json();
    expect(server).toMatchObject({
      issuer: baseUrl,
      authorization_endpoint: `${baseUrl}/oauth/authorize`,
      token_endpoint: `${baseUrl}/oauth/token`,
      registration_endpoint: `${baseUrl}/oauth/register`,
      revocation_endpoint: `${baseUrl}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
    });
  });

  it("connects the SDK client through the whole flow; its tools act in the consenting user's tenant; no listChanged", async () => {
    const tenant = await createTenant(t.app);
    const member = await createUser(t.app, tenant.id, 'member');
    const { client } = await connectAs(member);
    expect(client.getServerCapabilities()?.tools?.listChanged).not.toBe(true);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['ask', 'forget', 'query', 'remember']);

    expect((await call(client, 'remember', { user_id: 'u1', text: 'Alice works at Acme Corporation in Berlin.' })).isError).toBe(false);
    expect((await call(client, 'query', { user_id: 'u1', query: 'Where does Alice work?' })).value.answer).toMatch(/Acme/);

    // The tenant's own API key sees the same memory: it is the tenant's, not the client's.
    const key = await createApiKey(t.app, tenant.id);
    const viaKey = new Client({ name: 'key', version: '1.0.0' });
    await viaKey.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { 'X-API-Key': key.key } } }));
    clients.push(viaKey);
    expect((await call(viaKey, 'query', { user_id: 'u1', query: 'Where does Alice work?' })).value.answer).toMatch(/Acme/);
  });

  it("cannot reach another tenant's data", async () => {
    const other = await createTenant(t.app);
    const otherKey = await createApiKey(t.app, other.id);
    const viaKey = new Client({ name: 'key', version: '1.0.0' });
    await viaKey.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { 'X-API-Key': otherKey.key } } }));
    clients.push(viaKey);
    await call(viaKey, 'remember', { user_id: 'shared-user', text: 'Carol Diaz is the treasurer of Initech.' });

    const tenant = await createTenant(t.app);
    const { client } = await connectAs(await createUser(t.app, tenant.id, 'admin'));
    const seen = await call(client, 'query', { user_id: 'shared-user', query: 'Who is the treasurer of Initech?' });
    expect(seen).toMatchObject({ isError: true, text: expect.stringMatching(/^404: /) });
    expect(seen.text).not.toMatch(/Carol/);
    expect((await call(client, 'forget', { user_id: 'shared-user', dataset: 'main' })).isError).toBe(true);
    expect((await call(viaKey, 'query', { user_id: 'shared-user', query: 'Who is the treasurer of Initech?' })).value.answer).toMatch(/Carol/);
  });

  it('refuses a revoked token and a disabled user\'s token with 401', async () => {
    const tenant = await createTenant(t.app);
    const admin = await createUser(t.app, tenant.id, 'admin');
    const revoked = await connectAs(await createUser(t.app, tenant.id, 'member'));
    expect((await listTools(revoked.token)).status).toBe(200);
    const revocation = await fetch(`${baseUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: revoked.provider.info!.client_id, token: revoked.token }),
    });
    expect(revocation.status).toBe(200);
    const afterRevoke = await listTools(revoked.token);
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", resource_metadata="/);
    expect(await afterRevoke.json()).toMatchObject({ error: { code: 'unauthenticated' } });
    // The grant's refresh token went with it.
    const refresh = await fetch(`${baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: revoked.provider.info!.client_id, refresh_token: revoked.provider.saved!.refresh_token! }),
    });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });

    const member = await createUser(t.app, tenant.id, 'member');
    const disabled = await connectAs(member);
    expect((await listTools(disabled.token)).status).toBe(200);
    await t.http.patch(`/v1/users/${member.id}`).set('Authorization', `Bearer ${admin.token}`).send({ disabled: true }).expect(200);
    expect((await listTools(disabled.token)).status).toBe(401);
  });

  it('refreshes: a new pair for the same grant, the spent refresh token refused (and its reuse ends the grant)', async () => {
    const tenant = await createTenant(t.app);
    const { provider, token } = await connectAs(await createUser(t.app, tenant.id, 'member'));
    const body = (refreshToken: string) =>
      new URLSearchParams({ grant_type: 'refresh_token', client_id: provider.info!.client_id, refresh_token: refreshToken });
    const refreshed = await fetch(`${baseUrl}/oauth/token`, { method: 'POST', body: body(provider.saved!.refresh_token!) });
    expect(refreshed.status).toBe(200);
    const pair = (await refreshed.json()) as OAuthTokens;
    expect((await listTools(pair.access_token)).status).toBe(200);
    const replay = await fetch(`${baseUrl}/oauth/token`, { method: 'POST', body: body(provider.saved!.refresh_token!) });
    expect(replay.status).toBe(400);
    expect((await listTools(pair.access_token)).status).toBe(401);
    expect((await listTools(token)).status).toBe(401);
  });

  it('refuses a wrong PKCE verifier, a reused code and an unregistered redirect_uri in OAuth error shapes', async () => {
    const tenant = await createTenant(t.app);
    const member = await createUser(t.app, tenant.id, 'member');
    const { clientId, verifier, answer, code } = await codeByHand(member);
    expect(answer.status).toBe(303);
    expect(new URL(answer.headers.get('location')!).searchParams.get('state')).toBe('xyz');

    const wrong = await exchange(clientId, code!, randomBytes(32).toString('base64url'));
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant' });
    const right = await exchange(clientId, code!, verifier);
    expect(right.status).toBe(200);
    const tokens = (await right.json()) as OAuthTokens;
    expect(tokens).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), scope: 'read write' });
    const reused = await exchange(clientId, code!, verifier);
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
    // A replayed code means it leaked: what it was exchanged for is revoked.
    expect((await listTools(tokens.access_token)).status).toBe(401);

    const elsewhere = new URL(`${baseUrl}/oauth/authorize`);
    elsewhere.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'https://attacker.example/callback',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
    }).toString();
    const refused = await fetch(elsewhere, { redirect: 'manual' });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
    expect(await refused.json()).toMatchObject({ error: 'invalid_request', error_description: 'Unregistered redirect_uri' });
  });

  it('lets no operator consent, and no forged or cookieless form through', async () => {
    const operator = await createUser(t.app, null, 'operator');
    const { answer } = await codeByHand(operator);
    expect(answer.status).toBe(403);
    expect(answer.headers.get('location')).toBeNull();
    expect(await answer.text()).toMatch(/Operator accounts have no tenant/);

    const tenant = await createTenant(t.app);
    const member = await createUser(t.app, tenant.id, 'member');
    const wrongPassword = await codeByHand({ email: member.email, password: 'not the password at all' });
    expect(wrongPassword.answer.status).toBe(401);
    expect(wrongPassword.answer.headers.get('location')).toBeNull();

    const forged = await fetch(`${baseUrl}/oauth/consent`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request: 'eyJ9.abc', email: member.email, password: member.password, decision: 'approve' }),
    });
    expect(forged.status).toBe(400);
    expect(forged.headers.get('location')).toBeNull();

    // A real page's form, posted without the page's cookie (as from another site): refused.
    const page = await fetch(`${baseUrl}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: (await codeByHand(member)).clientId, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`);
    const signed = (await page.text()).match(/name="request" value="([^"]+)"/)![1];
    const cookieless = await fetch(`${baseUrl}/oauth/consent`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request: signed, email: member.email, password: member.password, decision: 'approve' }),
    });
    expect(cookieless.status).toBe(403);
    expect(cookieless.headers.get('location')).toBeNull();
  });

  it("keeps a member's token to what a member and the grant allow: /mcp only, and a read grant cannot write", async () => {
    const tenant = await createTenant(t.app);
    const member = await createUser(t.app, tenant.id, 'member');
    const { clientId, verifier, code } = await codeByHand(member, 'read');
    const tokens = (await (await exchange(clientId, code!, verifier)).json()) as OAuthTokens;
    expect(tokens.scope).toBe('read');
    const toolText = async (name: string, args: object) => {
      const reply = (await (await rpc(tokens.access_token, 'tools/call', { name, arguments: args })).json()) as any;
      return reply.result.content[0].text as string;
    };
    expect(await toolText('remember', { user_id: 'u1', text: 'Alice works at Acme.' })).toMatch(/^403: This authorization lacks the 'write' scope/);
    expect(await toolText('query', { user_id: 'u1', query: 'Where does Alice work?' })).not.toMatch(/scope/);
    // Not a dashboard session: the admin-only users list, and /v1/me, refuse it.
    await t.http.get('/v1/users').set('Authorization', `Bearer ${tokens.access_token}`).expect(401);
    await t.http.get('/v1/me').set('Authorization', `Bearer ${tokens.access_token}`).expect(401);
  });

  it('refuses an unknown scope back at the redirect URI, as OAuth says', async () => {
    const registered = (await (
      await fetch(`${baseUrl}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [REDIRECT_URL], token_endpoint_auth_method: 'none' }) })
    ).json()) as { client_id: string };
    const authorize = new URL(`${baseUrl}/oauth/authorize`);
    authorize.search = new URLSearchParams({ response_type: 'code', client_id: registered.client_id, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', scope: 'admin' }).toString();
    const answer = await fetch(authorize, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    expect(new URL(answer.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
  });

  it('still takes API keys exactly as before, and still refuses a dashboard session', async () => {
    const tenant = await createTenant(t.app);
    const key = await createApiKey(t.app, tenant.id);
    const client = new Client({ name: 'key', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key.key}` } } }));
    clients.push(client);
    expect((await client.listTools()).tools).toHaveLength(4);
    const member = await createUser(t.app, tenant.id, 'member');
    expect((await listTools(member.token)).status).toBe(403);
  });
});
