import { Inject, Injectable } from '@nestjs/common';
import { ConflictError } from '@loci/common';
import { eq, sql } from 'drizzle-orm';
import { Database, DATABASE } from '../database';
import { isUniqueViolation } from '../postgres-errors';
import { UserRole, UserRow, users } from '../schema';

export interface NewUser {
  tenantId: string | null;
  email: string;
  passwordHash: string;
  role: UserRole;
}

@Injectable()
export class UsersRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

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

  async listByTenant(tenantId: string): Promise<UserRow[]> {
    return this.database.db.select().from(users).where(eq(users.tenantId, tenantId)).orderBy(users.createdAt);
  }
}
