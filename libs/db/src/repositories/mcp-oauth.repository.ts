import { Inject, Injectable } from '@nestjs/common';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { Database, DATABASE } from '../database';
import { isUuid } from '../ids';
import {
  mcpOauthClients,
  McpOauthCodeRow,
  mcpOauthCodes,
  McpOauthTokenRow,
  mcpOauthTokens,
  tenants,
  UserRole,
  users,
} from '../schema';

export type NewMcpOauthCode = Omit<McpOauthCodeRow, 'usedAt' | 'createdAt'>;
export type NewMcpOauthToken = Omit<McpOauthTokenRow, 'id' | 'revokedAt' | 'createdAt'>;

/** A live token with its user and tenant as stored now, read in the statement that finds the token. */
export interface McpOauthTokenState {
  token: McpOauthTokenRow;
  user: { id: string; tenantId: string | null; role: UserRole; disabledAt: Date | null; tokenVersion: number };
  tenant: { suspendedAt: Date | null; answerLanguage: string | null };
}

/** The store of MCP's OAuth: registered clients, authorization codes and tokens (hashes only). */
@Injectable()
export class McpOauthRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  async registerClient(clientId: string, metadata: Record<string, unknown>): Promise<void> {
    await this.database.db.insert(mcpOauthClients).values({ clientId, metadata });
  }

  async findClient(clientId: string): Promise<Record<string, unknown> | undefined> {
    // The SDK issues uuids; anything else names no client (and never reaches the store as a bad value).
    if (!isUuid(clientId)) return undefined;
    const [row] = await this.database.db.select().from(mcpOauthClients).where(eq(mcpOauthClients.clientId, clientId));
    return row?.metadata;
  }

  async createCode(code: NewMcpOauthCode): Promise<void> {
    await this.database.db.insert(mcpOauthCodes).values(code);
  }

  /** A code as stored, used or not, expired or not: the token endpoint tells these apart. */
  async findCode(codeHash: string): Promise<McpOauthCodeRow | undefined> {
    const [row] = await this.database.db.select().from(mcpOauthCodes).where(eq(mcpOauthCodes.codeHash, codeHash));
    return row;
  }

  /**
   * Marks an unused, unexpired code of this client used and answers it, in one statement: of two
   * exchanges of one code at once, exactly one gets it.
   */
  async consumeCode(codeHash: string, clientId: string, now: Date): Promise<McpOauthCodeRow | undefined> {
    const [row] = await this.database.db
      .update(mcpOauthCodes)
      .set({ usedAt: now })
      .where(
        and(eq(mcpOauthCodes.codeHash, codeHash), eq(mcpOauthCodes.clientId, clientId), isNull(mcpOauthCodes.usedAt), gt(mcpOauthCodes.expiresAt, now)),
      )
      .returning();
    return row;
  }

  async createTokens(tokens: NewMcpOauthToken[]): Promise<void> {
    await this.database.db.insert(mcpOauthTokens).values(tokens);
  }

  /** The token with this hash, revoked or not, with its user's and tenant's state now. */
  async findToken(tokenHash: string): Promise<McpOauthTokenState | undefined> {
    const [row] = await this.database.db
      .select({
        token: mcpOauthTokens,
        user: { id: users.id, tenantId: users.tenantId, role: users.role, disabledAt: users.disabledAt, tokenVersion: users.tokenVersion },
        tenant: { suspendedAt: tenants.suspendedAt, answerLanguage: tenants.answerLanguage },
      })
      .from(mcpOauthTokens)
      .innerJoin(users, eq(users.id, mcpOauthTokens.userId))
      .innerJoin(tenants, eq(tenants.id, mcpOauthTokens.tenantId))
      .where(eq(mcpOauthTokens.tokenHash, tokenHash));
    return row;
  }

  /**
   * Revokes the refresh token (rotation) if it is still live; true when this call revoked it,
   * so of two refreshes with one token only one goes on to issue new tokens.
   */
  async revokeTokenOnce(tenantId: string, tokenId: string, now: Date): Promise<boolean> {
    const rows = await this.database.db
      .update(mcpOauthTokens)
      .set({ revokedAt: now })
      .where(and(eq(mcpOauthTokens.tenantId, tenantId), eq(mcpOauthTokens.id, tokenId), isNull(mcpOauthTokens.revokedAt)))
      .returning({ id: mcpOauthTokens.id });
    return rows.length > 0;
  }

  /** Revokes every token of one consent (the tenant's). */
  async revokeGrant(tenantId: string, grantId: string, now: Date): Promise<void> {
    await this.database.db
      .update(mcpOauthTokens)
      .set({ revokedAt: sql`coalesce(${mcpOauthTokens.revokedAt}, ${now.toISOString()}::timestamptz)` })
      .where(and(eq(mcpOauthTokens.tenantId, tenantId), eq(mcpOauthTokens.grantId, grantId)));
  }
}

