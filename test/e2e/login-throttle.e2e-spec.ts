import { randomInt, randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { createUser, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Issue 15, item 1: failed logins (and wrong current passwords at a password change) are counted
 * per email and per client address in the limit store (Redis, or in process), and past the cap
 * the answer is 429 with Retry-After.
 *
 * The app trusts X-Forwarded-For from loopback, so each request can come from its own address:
 * Redis is shared between test runs, and the per-address counters of one run must not meet
 * another's. No test waits for a window to pass: the unit and contract specs step through time.
 */
const randomAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const unknownEmail = () => `nobody-${randomUUID()}@example.test`;

function expectThrottled(response: Response): void {
  expect(response.status).toBe(429);
  expect(response.body).toEqual({
    error: { code: 'too_many_login_attempts', message: expect.any(String), retry_after: expect.any(Number) },
    request_id: response.headers['x-request-id'],
  });
  const retryAfter = Number(response.headers['retry-after']);
  expect(retryAfter).toBe(response.body.error.retry_after);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(900);
}

/** What a client can compare between two refusals: everything but the request id and the seconds left. */
const comparable = (response: Response) => ({
  status: response.status,
  code: response.body.error?.code,
  message: response.body.error?.message,
  fields: Object.keys(response.body.error ?? {}).sort(),
  wwwAuthenticate: response.headers['www-authenticate'],
});

describe('login throttling (e2e)', () => {
  let t: TestApp;

  const login = (email: string, password: string, address = randomAddress()) =>
    t.http.post('/v1/auth/login').set('X-Forwarded-For', address).send({ email, password });

  async function failTimes(count: number, email: string, address?: string): Promise<void> {
    for (let i = 0; i < count; i++) expect((await login(email, `wrong-${i}`, address)).status).toBe(401);
  }

  beforeAll(async () => {
    t = await startTestApp({
      LOCI_TRUST_PROXY: 'loopback',
      LOCI_LOGIN_MAX_FAILURES_PER_EMAIL: '10',
      LOCI_LOGIN_MAX_FAILURES_PER_ADDRESS: '12',
      // The cap alone here; the backoff has its own app below.
      LOCI_LOGIN_BACKOFF_AFTER_FAILURES: '10',
    });
  });
  afterAll(() => t.close());

  it('answers the 11th wrong password for one email with 429 and Retry-After, the same whether or not the email exists', async () => {
    const user = await createUser(t.app, null, 'operator');
    await failTimes(10, user.email);
    const known = await login(user.email, 'wrong-again');
    expectThrottled(known);

    const nobody = unknownEmail();
    await failTimes(10, nobody);
    const unknown = await login(nobody, 'wrong-again');
    expectThrottled(unknown);
    expect(comparable(unknown)).toEqual(comparable(known));
  });

  it('refuses the right password too while the email is locked, so the lock tells nothing', async () => {
    const user = await createUser(t.app, null, 'operator');
    await failTimes(10, user.email);
    expectThrottled(await login(user.email, user.password));
  });

  it('counts the email however it is cased', async () => {
    const user = await createUser(t.app, null, 'operator');
    await failTimes(10, user.email.toUpperCase());
    expectThrottled(await login(user.email, user.password));
  });

  it("clears the email's failures on a success", async () => {
    const user = await createUser(t.app, null, 'operator');
    await failTimes(9, user.email);
    expect((await login(user.email, user.password)).status).toBe(200);
    // Without the reset the 10th failure would already be the last one allowed.
    await failTimes(10, user.email);
    expectThrottled(await login(user.email, 'wrong-again'));
  });

  it('caps failures from one client address across many emails, and only from that address', async () => {
    const address = randomAddress();
    for (let i = 0; i < 12; i++) expect((await login(unknownEmail(), 'wrong', address)).status).toBe(401);
    const fresh = unknownEmail();
    expectThrottled(await login(fresh, 'wrong', address));
    expect((await login(fresh, 'wrong', randomAddress())).status).toBe(401);
  });

  it('does not count successful logins against the address', async () => {
    const address = randomAddress();
    const user = await createUser(t.app, null, 'operator');
    for (let i = 0; i < 15; i++) expect((await login(user.email, user.password, address)).status).toBe(200);
    expect((await login(unknownEmail(), 'wrong', address)).status).toBe(401);
  });

  it('counts wrong current passwords at POST /v1/auth/password against the same account, and locks both ways in', async () => {
    const user = await createUser(t.app, null, 'operator');
    const change = (current: string) =>
      t.http
        .post('/v1/auth/password')
        .set('Authorization', `Bearer ${user.token}`)
        .set('X-Forwarded-For', randomAddress())
        .send({ current_password: current, new_password: 'a brand new password' });
    for (let i = 0; i < 10; i++) expect((await change(`wrong-${i}`)).status).toBe(403);
    expectThrottled(await change(user.password));
    expectThrottled(await login(user.email, user.password));
  });

  it('keeps bad input a 400, uncounted', async () => {
    const user = await createUser(t.app, null, 'operator');
    for (let i = 0; i < 12; i++) {
      expect((await t.http.post('/v1/auth/login').send({ email: user.email, password: '' })).status).toBe(400);
    }
    expect((await login(user.email, user.password)).status).toBe(200);
  });
});

describe('login backoff (e2e)', () => {
  let t: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    t = await startTestApp({ LOCI_TRUST_PROXY: 'loopback', LOCI_LOGIN_BACKOFF_AFTER_FAILURES: '2', LOCI_LOGIN_BACKOFF_BASE_MS: '600000' });
    user = await createUser(t.app, null, 'operator');
  });
  afterAll(() => t.close());

  it('makes the attempt after the backoff threshold wait, for the base delay counted from the last failure', async () => {
    const login = (password: string) => t.http.post('/v1/auth/login').set('X-Forwarded-For', randomAddress()).send({ email: user.email, password });
    expect((await login('wrong-1')).status).toBe(401);
    expect((await login('wrong-2')).status).toBe(401);
    const refused = await login(user.password);
    expectThrottled(refused);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(500);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(600);
  });
});

describe('login with the limit store unreachable (e2e)', () => {
  let t: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    // Port 1 on loopback refuses every connection.
    t = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:1' });
    user = await createUser(t.app, null, 'operator'); // LoginService directly: fixtures are not throttled
  });
  afterAll(() => t.close());

  it('fails closed with 503 limits_unavailable and Retry-After, even for the right password', async () => {
    const response = await t.http.post('/v1/auth/login').send({ email: user.email, password: user.password });
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ error: { code: 'limits_unavailable', message: expect.any(String) }, request_id: response.headers['x-request-id'] });
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    expect(response.body.access_token).toBeUndefined();
  });
});
