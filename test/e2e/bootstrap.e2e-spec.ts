import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { eq } from 'drizzle-orm';
import type { Settings } from '@loci/config';
import { hashPassword } from '@loci/auth';
import { Database, DATABASE, users, UserRow, UsersRepository } from '@loci/db';
import { createTenant, createTestEnvironment } from '@loci/testing';
import { startTestApp } from '../support/test-app';
import { createApp } from '../../apps/api/src/create-app';
import { OperatorBootstrapService } from '../../apps/api/src/operator-bootstrap.service';

/** The first operator comes from LOCI_BOOTSTRAP_OPERATOR_EMAIL/_PASSWORD, once per database. */

const EMAIL = 'first-operator@example.test';
const PASSWORD = 'operator password, long enough';
const BOOTSTRAP_ENV = { LOCI_BOOTSTRAP_OPERATOR_EMAIL: EMAIL, LOCI_BOOTSTRAP_OPERATOR_PASSWORD: PASSWORD };

const operatorsIn = (app: INestApplication): Promise<UserRow[]> =>
  app.get<Database>(DATABASE).db.select().from(users).where(eq(users.role, 'operator'));

async function login(app: INestApplication, email: string, password: string) {
  return request(app.getHttpServer()).post('/v1/auth/login').send({ email, password });
}

/** Boots the app on `settings`, runs `fn`, and always closes it (PGlite allows one process at a time). */
async function withApp<T>(settings: Settings, fn: (app: INestApplication) => Promise<T>): Promise<T> {
  const app = await createApp(settings);
  try {
    await app.init();
    return await fn(app);
  } finally {
    await app.close();
  }
}

describe('operator bootstrap (e2e)', () => {
  it('creates the operator, who can log in and use the operators API', async () => {
    const t = await startTestApp(BOOTSTRAP_ENV);
    try {
      const operators = await operatorsIn(t.app);
      expect(operators).toHaveLength(1);
      expect(operators[0]).toMatchObject({ email: EMAIL, role: 'operator', tenantId: null });
      expect(operators[0].passwordHash).not.toContain(PASSWORD);

      const res = await t.http.post('/v1/auth/login').send({ email: EMAIL, password: PASSWORD }).expect(200);
      const token: string = res.body.access_token;
      await t.http.get('/v1/admin/tenants').set('Authorization', `Bearer ${token}`).expect(200);
      expect(t.app.get(OperatorBootstrapService).firstRunHint()).toBeUndefined();
      const who = await t.http.get('/v1/me').set('Authorization', `Bearer ${token}`).expect(200);
      expect(who.body).toMatchObject({ kind: 'jwt', role: 'operator', tenant_id: null, user_id: operators[0].id });
    } finally {
      await t.close();
    }
  });

  it('creates no operator without the settings', async () => {
    const t = await startTestApp();
    try {
      expect(t.settings.bootstrapOperator).toBeUndefined();
      expect(await operatorsIn(t.app)).toEqual([]);
      expect((await t.http.post('/v1/auth/login').send({ email: EMAIL, password: PASSWORD })).status).toBe(401);
      // Nobody can sign in: the log says how to create the first operator (first-run.e2e-spec.ts).
      expect(t.app.get(OperatorBootstrapService).firstRunHint()).toContain('LOCI_BOOTSTRAP_OPERATOR_EMAIL');
    } finally {
      await t.close();
    }
  });

  describe('booting again on the same database', () => {
    let environment: Awaited<ReturnType<typeof createTestEnvironment>>;
    let first: UserRow;

    beforeAll(async () => {
      environment = await createTestEnvironment(BOOTSTRAP_ENV);
      [first] = await withApp(environment.settings, operatorsIn);
    });
    afterAll(() => environment.cleanup());

    it('does not fail and does not create a second operator', async () => {
      await withApp(environment.settings, async (app) => {
        expect(await operatorsIn(app)).toEqual([first]);
        expect((await login(app, EMAIL, PASSWORD)).status).toBe(200);
      });
      // Without the settings, a store that has users asks nobody to create one.
      await withApp({ ...environment.settings, bootstrapOperator: undefined }, async (app) => {
        expect(app.get(OperatorBootstrapService).firstRunHint()).toBeUndefined();
      });
    });

    it('boots when another instance creates the operator between its check and its insert', async () => {
      // The race of two instances starting together, made deterministic: our check sees no user.
      const findByEmail = jest.spyOn(UsersRepository.prototype, 'findByEmail').mockResolvedValueOnce(undefined);
      try {
        await withApp(environment.settings, async (app) => {
          expect(findByEmail).toHaveBeenCalledWith(EMAIL);
          expect(await operatorsIn(app)).toEqual([first]);
        });
      } finally {
        findByEmail.mockRestore();
      }
    });

    it('treats the email case-insensitively', async () => {
      const shouting = { ...environment.settings, bootstrapOperator: { email: EMAIL.toUpperCase(), password: PASSWORD } };
      await withApp(shouting, async (app) => {
        expect(await operatorsIn(app)).toEqual([first]);
      });
    });

    it('never resets the password of the existing operator', async () => {
      const changed = { ...environment.settings, bootstrapOperator: { email: EMAIL, password: 'a different long password' } };
      await withApp(changed, async (app) => {
        expect(await operatorsIn(app)).toEqual([first]);
        expect((await login(app, EMAIL, PASSWORD)).status).toBe(200);
        expect((await login(app, EMAIL, 'a different long password')).status).toBe(401);
      });
    });

    it('leaves a tenant user who has that email alone instead of making an operator', async () => {
      const email = 'taken-by-a-member@example.test';
      await withApp(environment.settings, async (app) => {
        const tenant = await createTenant(app);
        await app.get(UsersRepository).create({ tenantId: tenant.id, email, role: 'member', passwordHash: await hashPassword(PASSWORD) });
      });
      const claimed = { ...environment.settings, bootstrapOperator: { email, password: PASSWORD } };
      await withApp(claimed, async (app) => {
        expect(await operatorsIn(app)).toEqual([first]);
        expect(await app.get(UsersRepository).findByEmail(email)).toMatchObject({ role: 'member' });
      });
    });
  });
});
