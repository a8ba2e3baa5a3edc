import { Inject, Injectable } from '@nestjs/common';
import { ConflictError } from '@loci/common';
import { and, asc, count, eq, isNull, ne, sql } from 'drizzle-orm';
import { Database, DATABASE, Db, statementName } from '../database';
import { isUuid } from '../ids';
import { isUniqueViolation } from '../postgres-errors';
import { apiKeys, tenants, UserRole, UserRow, users } from '../schema';

export interface NewUser {
  tenantId: string | null;
  email: string;
  passwordHash: string;
  role: UserRole;
}

/** What the guard needs to know about a token's user on every request. */
export interface UserCredentialState {
  id: string;
  tenantId: string | null;
  role: UserRole;
  tokenVersion: number;
  disabledAt: Date | null;
  /** The user's tenant's suspension, read in the same statement (null: active, or no tenant). */
  tenantSuspendedAt: Date | null;
  /** The tenant's `answer_language`, in the same statement: a no-answer needs it without another read. */
  tenantAnswerLanguage: string | null;
}

/** A tenant admin's or operator's change to a member of a tenant; undefined fields stay. */
export interface TenantUserChange {
  role?: 'admin' | 'member';
  disabled?: boolean;
}

/** Why a change to a tenant's users was not made, or what it did. */
export type TenantUserOutcome<T> = { kind: 'done'; value: T } | { kind: 'not_found' } | { kind: 'last_admin' };

@Injectable()
export class UsersRepository {
  /**
   * Read on every JWT request (the token-version check), so prepared once like the API-key
   * lookup: one primary-key read a request.
   */
  private readonly credentialStateById;

  constructor(@Inject(DATABASE) private readonly database: Database) {
    this.credentialStateById = this.database.db
      .select({
        id: users.id,
        tenantId: users.tenantId,
        role: users.role,
        tokenVersion: users.tokenVersion,
        disabledAt: users.disabledAt,
        tenantSuspendedAt: tenants.suspendedAt,
        tenantAnswerLanguage: tenants.answerLanguage,
      })
      .from(users)
      .leftJoin(tenants, eq(tenants.id, users.tenantId))
      .where(eq(users.id, sql.placeholder('id')))
      .prepare(statementName(this.database, 'users_credential_state_by_id'));
  }

  /** Emails are unique platform-wide, compared case-insensitively. */
  async create(user: NewUser): Promise<UserRow> {
    try {
      const [row] = await this.database.db.insert(users).values(user).returning();
      return row;
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError('A user with this email already exists.');
      throw error;
    }
  }

  async findByEmail(email: string): Promise<UserRow | undefined> {
    const [row] = await this.database.db
      .select()
      .from(users)
      .where(eq(sql`lower(${users.email})`, email.toLowerCase()));
    return row;
  }

  /** Whether any user of the given role (or any user at all) exists: the first-run check. */
  async exists(role?: UserRole): Promise<boolean> {
    const [row] = await this.database.db
      .select({ id: users.id })
      .from(users)
      .where(role ? eq(users.role, role) : undefined)
      .limit(1);
    return row !== undefined;
  }

  async findById(userId: string): Promise<UserRow | undefined> {
    if (!isUuid(userId)) return undefined;
    const [row] = await this.database.db.select().from(users).where(eq(users.id, userId));
    return row;
  }

  /** Who a user is, to show them (GET /v1/me): their email and their tenant's name (null for an operator). */
  async identity(userId: string): Promise<{ email: string; tenantName: string | null } | undefined> {
    if (!isUuid(userId)) return undefined;
    const [row] = await this.database.db
      .select({ email: users.email, tenantName: tenants.name })
      .from(users)
      .leftJoin(tenants, eq(tenants.id, users.tenantId))
      .where(eq(users.id, userId));
    return row;
  }

  async findCredentialState(userId: string): Promise<UserCredentialState | undefined> {
    const [row] = await this.credentialStateById.execute({ id: userId });
    return row;
  }

  async listByTenant(tenantId: string, page?: { limit: number; offset: number }): Promise<UserRow[]> {
    const query = this.database.db.select().from(users).where(eq(users.tenantId, tenantId)).orderBy(asc(users.createdAt), asc(users.id));
    return page ? query.limit(page.limit).offset(page.offset) : query;
  }

  /**
   * Stores a new password hash and bumps the token version, ending every token issued before.
   * Returns the new version (for the token issued in reply), undefined when the user is gone.
   */
  async setPassword(userId: string, passwordHash: string): Promise<number | undefined> {
    const [row] = await this.database.db
      .update(users)
      .set({ passwordHash, tokenVersion: sql`${users.tokenVersion} + 1`, updatedAt: new Date() })
      .where(eq(users.id, userId))
      .returning({ tokenVersion: users.tokenVersion });
    return row?.tokenVersion;
  }

  /**
   * Changes a tenant user's role or disabled state. Disabling bumps the token version (its
   * tokens end at once); a role change needs no bump because the guard reads the role from
   * this row on every request. Refused when it would leave the tenant without an active admin.
   */
  async updateInTenant(tenantId: string, userId: string, change: TenantUserChange): Promise<TenantUserOutcome<UserRow>> {
    if (!isUuid(tenantId) || !isUuid(userId)) return { kind: 'not_found' };
    return this.database.db.transaction(async (tx) => {
      const user = await this.lockTenantAndRead(tx, tenantId, userId);
      if (!user) return { kind: 'not_found' };
      const disabled = change.disabled ?? user.disabledAt !== null;
      const role = change.role ?? user.role;
      if (isActiveAdmin(user) && !(role === 'admin' && !disabled) && !(await this.hasOtherActiveAdmin(tx, tenantId, userId))) {
        return { kind: 'last_admin' };
      }
      const newlyDisabled = disabled && user.disabledAt === null;
      const [row] = await tx
        .update(users)
        .set({
          role,
          disabledAt: disabled ? (user.disabledAt ?? new Date()) : null,
          ...(newlyDisabled ? { tokenVersion: sql`${users.tokenVersion} + 1` } : {}),
          updatedAt: new Date(),
        })
        .where(and(eq(users.tenantId, tenantId), eq(users.id, userId)))
        .returning();
      return { kind: 'done', value: row };
    });
  }

  /**
   * Deletes a tenant user and revokes the API keys they created, in one transaction (their
   * tokens fail at once: the guard finds no user). Returns the ids of the keys revoked.
   * Refused when the user is the tenant's last active admin.
   */
  async deleteInTenant(tenantId: string, userId: string): Promise<TenantUserOutcome<{ revokedApiKeyIds: string[] }>> {
    if (!isUuid(tenantId) || !isUuid(userId)) return { kind: 'not_found' };
    return this.database.db.transaction(async (tx) => {
      const user = await this.lockTenantAndRead(tx, tenantId, userId);
      if (!user) return { kind: 'not_found' };
      if (isActiveAdmin(user) && !(await this.hasOtherActiveAdmin(tx, tenantId, userId))) {
        return { kind: 'last_admin' };
      }
      const revoked = await tx
        .update(apiKeys)
        .set({ revokedAt: new Date() })
        .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.createdByUserId, userId), isNull(apiKeys.revokedAt)))
        .returning({ id: apiKeys.id });
      await tx.delete(users).where(and(eq(users.tenantId, tenantId), eq(users.id, userId)));
      return { kind: 'done', value: { revokedApiKeyIds: revoked.map((r) => r.id) } };
    });
  }

  /**
   * Locks the tenant's row first, so that two changes to the same tenant's admins run one
   * after the other: two admins demoting each other at once would otherwise both see another
   * admin left. NO KEY UPDATE does not block inserts that reference the tenant.
   */
  private async lockTenantAndRead(tx: Db, tenantId: string, userId: string): Promise<UserRow | undefined> {
    await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId)).for('no key update');
    const [user] = await tx.select().from(users).where(and(eq(users.tenantId, tenantId), eq(users.id, userId)));
    return user;
  }

  private async hasOtherActiveAdmin(tx: Db, tenantId: string, userId: string): Promise<boolean> {
    const [row] = await tx
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.tenantId, tenantId), ne(users.id, userId), eq(users.role, 'admin'), isNull(users.disabledAt)));
    return Number(row.n) > 0;
  }
}

const isActiveAdmin = (user: UserRow) => user.role === 'admin' && user.disabledAt === null;
