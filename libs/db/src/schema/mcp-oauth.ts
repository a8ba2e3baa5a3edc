import { sql } from 'drizzle-orm';
import { check, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tenantIdColumn } from './columns';
import { apiKeyScope, tenants, users } from './tenancy';

/**
 * MCP clients registered by OAuth dynamic client registration (RFC 7591). Global: a client
 * registers before anyone has signed in, so before any tenant is known. Every client is public
 * (PKCE, no secret), so nothing here is a secret.
 */
export const mcpOauthClients = pgTable('mcp_oauth_clients', {
  clientId: text('client_id').primaryKey(),
  /** The registration as the SDK's handler checked and completed it (redirect_uris, client_name, ...). */
  metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull(),
  createdAt: createdAt(),
});

/**
 * Authorization codes a signed-in user's consent created: short-lived, single use (`used_at`),
 * bound to the client, the redirect URI and the PKCE challenge, the user and their tenant. Only
 * the sha256 of a code is kept. `grant_id` names the consent: the tokens it leads to share it,
 * so a replayed code can end them all.
 */
export const mcpOauthCodes = pgTable(
  'mcp_oauth_codes',
  {
    tenantId: tenantIdColumn(),
    codeHash: text('code_hash').notNull(),
    grantId: uuid('grant_id').notNull(),
    clientId: text('client_id').notNull(),
    userId: uuid('user_id').notNull(),
    redirectUri: text('redirect_uri').notNull(),
    codeChallenge: text('code_challenge').notNull(),
    scopes: apiKeyScope('scopes').array().notNull(),
    resource: text('resource'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.codeHash] }),
    uniqueIndex('mcp_oauth_codes_code_hash_key').on(t.codeHash),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.userId], foreignColumns: [users.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.clientId], foreignColumns: [mcpOauthClients.clientId] }).onDelete('cascade'),
    index('mcp_oauth_codes_user_idx').on(t.userId),
    index('mcp_oauth_codes_client_idx').on(t.clientId),
  ],
);

/**
 * Access and refresh tokens of MCP clients: the sha256 of each (the token is shown once, to the
 * client), for one user in one tenant, with the user's token version at issue (a disabled user,
 * or a password change, ends them as it ends dashboard tokens) and the scopes the user granted.
 * Revoking a token revokes its grant: every token descended from the same consent.
 */
export const mcpOauthTokens = pgTable(
  'mcp_oauth_tokens',
  {
    tenantId: tenantIdColumn(),
    id: uuid('id').notNull().defaultRandom(),
    grantId: uuid('grant_id').notNull(),
    kind: text('kind').$type<'access' | 'refresh'>().notNull(),
    tokenHash: text('token_hash').notNull(),
    clientId: text('client_id').notNull(),
    userId: uuid('user_id').notNull(),
    tokenVersion: integer('token_version').notNull(),
    scopes: apiKeyScope('scopes').array().notNull(),
    resource: text('resource'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('mcp_oauth_tokens_token_hash_key').on(t.tokenHash),
    index('mcp_oauth_tokens_grant_idx').on(t.grantId),
    index('mcp_oauth_tokens_user_idx').on(t.userId),
    index('mcp_oauth_tokens_client_idx').on(t.clientId),
    check('mcp_oauth_tokens_kind', sql`${t.kind} in ('access', 'refresh')`),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.userId], foreignColumns: [users.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.clientId], foreignColumns: [mcpOauthClients.clientId] }).onDelete('cascade'),
  ],
);

export type McpOauthClientRow = typeof mcpOauthClients.$inferSelect;
export type McpOauthCodeRow = typeof mcpOauthCodes.$inferSelect;
export type McpOauthTokenRow = typeof mcpOauthTokens.$inferSelect;
