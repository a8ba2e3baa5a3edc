import { randomUUID } from 'node:crypto';
import { PlatformLimitsRepository, QuestionCountsRepository, SpendLedgerRepository, TenantsRepository } from '@loci/db';
import { AdmissionRequest, LIMIT_ROWS_TTL_MS, LimitRows, MemoryLimitStore, RedisLimitStore, SpendControl } from '@loci/quota';
import { createTenant } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The per-process cache of limit rows on the real store, on a clock of its own: rows are read
 * again when the limit store's version moved, and, whatever the version, after LIMIT_ROWS_TTL_MS
 * (the bound for a change whose bump never reached the store).
 */
describe('cached limit rows', () => {
  let t: TestApp;
  let now = 0;
  let store: MemoryLimitStore;
  let rows: LimitRows;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  beforeEach(() => {
    now = 1_000_000;
    store = new MemoryLimitStore(() => now);
    rows = new LimitRows(store, t.app.get(TenantsRepository), t.app.get(PlatformLimitsRepository), () => now);
  });

  /** What SpendControl does: read, let the store check the version, read again under the store's. */
  async function readChecked(tenantId: string) {
    let read = await rows.read(tenantId);
    const answer = await store.admit({ window: { fromMs: 0, toMs: Number.MAX_SAFE_INTEGER }, scopes: [], limitsVersion: read.version });
    if (!answer.ok && answer.reason === 'limits') {
      rows.moved(answer.version);
      read = await rows.read(tenantId);
    }
    return read;
  }

  it('reads a row once per version, and again once the version moved', async () => {
    const tenant = await createTenant(t.app, { billing: 'own_key' });
    const repo = t.app.get(TenantsRepository);
    await repo.updateLimits(tenant.id, { dailyQueryQuota: 7 });
    expect((await readChecked(tenant.id)).tenant.dailyQueryQuota).toBe(7);
    const cached = await rows.read(tenant.id);
    expect(cached.tenant.dailyQueryQuota).toBe(7);

    await repo.updateLimits(tenant.id, { dailyQueryQuota: 8 });
    // Not bumped (a process that died between its commit and the bump): the row stays as read...
    expect((await readChecked(tenant.id)).tenant.dailyQueryQuota).toBe(7);
    await rows.changed(); // the operators' path: committed, then bumped
    expect((await readChecked(tenant.id)).tenant.dailyQueryQuota).toBe(8);

    await repo.updateLimits(tenant.id, { dailyQueryQuota: 9 });
    await store.bumpLimitsVersion(); // bumped by another instance
    expect((await readChecked(tenant.id)).tenant.dailyQueryQuota).toBe(9);
  });

  it('reads a row again after LIMIT_ROWS_TTL_MS even when no bump came', async () => {
    const tenant = await createTenant(t.app, { billing: 'own_key' });
    const repo = t.app.get(TenantsRepository);
    await repo.updateLimits(tenant.id, { maxConcurrentQueries: 3 });
    expect((await readChecked(tenant.id)).tenant.maxConcurrentQueries).toBe(3);
    await repo.updateLimits(tenant.id, { maxConcurrentQueries: 4 });
    now += LIMIT_ROWS_TTL_MS - 1;
    expect((await readChecked(tenant.id)).tenant.maxConcurrentQueries).toBe(3);
    now += 1;
    expect((await readChecked(tenant.id)).tenant.maxConcurrentQueries).toBe(4);
  });

  it("caches the platform's cap for platform-billed tenants only, under the same version", async () => {
    const platform = t.app.get(PlatformLimitsRepository);
    const own = await createTenant(t.app, { billing: 'own_key' });
    const onPlatform = await createTenant(t.app, { billing: 'platform' });
    expect((await readChecked(own.id)).platformCapMicros).toBeUndefined();
    await platform.set(123);
    try {
      expect((await readChecked(onPlatform.id)).platformCapMicros).toBe(123);
      await platform.set(456);
      expect((await readChecked(onPlatform.id)).platformCapMicros).toBe(123);
      await rows.changed();
      expect((await readChecked(onPlatform.id)).platformCapMicros).toBe(456);
    } finally {
      await platform.set(null);
    }
  });

  it("uses a row the request already read as it is, and checks no version when nothing cached was used", async () => {
    const tenant = await createTenant(t.app, { billing: 'own_key' });
    const row = (await t.app.get(TenantsRepository).findById(tenant.id))!;
    const read = await rows.read(tenant.id, { ...row, dailyQueryQuota: 42 });
    expect(read).toEqual({ tenant: expect.objectContaining({ dailyQueryQuota: 42 }), platformCapMicros: undefined, version: undefined });
  });

  it("gives the request rates the tenant's row alone, never reading the platform's", async () => {
    const onPlatform = await createTenant(t.app, { billing: 'platform' });
    const platformRows = { get: jest.fn(() => t.app.get(PlatformLimitsRepository).get()) };
    const local = new LimitRows(store, t.app.get(TenantsRepository), platformRows, () => now);
    const row = (await t.app.get(TenantsRepository).findById(onPlatform.id))!;
    // An API key's principal carries its tenant's row: used as it is.
    expect(await local.tenantRow(onPlatform.id, { ...row, requestsPerMinute: 77 })).toEqual(expect.objectContaining({ requestsPerMinute: 77 }));
    // A session's: read from the store.
    expect(await local.tenantRow(onPlatform.id)).toEqual(expect.objectContaining({ id: onPlatform.id, billing: 'platform' }));
    expect(platformRows.get).not.toHaveBeenCalled();
    // Admission's read of the same tenant still takes the platform's cap.
    await local.read(onPlatform.id);
    expect(platformRows.get).toHaveBeenCalledTimes(1);
  });

  it('a bump the limit store refuses still makes this process read its rows again', async () => {
    // Port 1 on loopback refuses every connection: the bump cannot reach the store.
    const unreachable = RedisLimitStore.connect('redis://127.0.0.1:1');
    const local = new LimitRows(unreachable, t.app.get(TenantsRepository), t.app.get(PlatformLimitsRepository), () => now);
    try {
      const tenant = await createTenant(t.app, { billing: 'own_key' });
      const repo = t.app.get(TenantsRepository);
      await repo.updateLimits(tenant.id, { dailyQueryQuota: 1 });
      const first = await local.read(tenant.id);
      local.moved('5');
      expect((await local.read(tenant.id)).tenant.dailyQueryQuota).toBe(1);
      await repo.updateLimits(tenant.id, { dailyQueryQuota: 2 });
      expect((await local.read(tenant.id)).tenant.dailyQueryQuota).toBe(1); // cached under '5'
      await expect(local.changed()).resolves.toBeUndefined(); // committed: the caller is not failed
      const after = await local.read(tenant.id);
      expect(after.tenant.dailyQueryQuota).toBe(2);
      expect(after.version).not.toBe('5');
      expect(first.tenant.dailyQueryQuota).toBe(1);
    } finally {
      local.close();
      await unreachable.close();
    }
  });

  it('a burst of limit changes during a request neither refuses it nor lets it use rows older than the request', async () => {
    const tenant = await createTenant(t.app, { billing: 'own_key' });
    const repo = t.app.get(TenantsRepository);
    await repo.updateLimits(tenant.id, { dailyQueryQuota: 1_000, maxConcurrentQueries: null, dailyCostCapMicros: null, monthlyCostCapMicros: null });
    // Another instance's operator script: before every atomic step this one takes, it commits a
    // change to the tenant's quota and bumps the version, more times than any retry budget.
    let quota = 1_000;
    class BurstyStore extends MemoryLimitStore {
      private async change(): Promise<void> {
        await repo.updateLimits(tenant.id, { dailyQueryQuota: ++quota });
        await this.bumpLimitsVersion();
      }
      override async admit(request: AdmissionRequest) {
        await this.change();
        return super.admit(request);
      }
      override async reserve(...args: Parameters<MemoryLimitStore['reserve']>) {
        await this.change();
        return super.reserve(...args);
      }
    }
    const store = new BurstyStore();
    const control = new SpendControl(
      store,
      repo,
      t.app.get(PlatformLimitsRepository),
      t.app.get(SpendLedgerRepository),
      { slotLeaseMs: 60_000, reservationLeaseMs: 60_000 },
      t.app.get(QuestionCountsRepository),
    );
    try {
      for (let i = 0; i < 3; i++) {
        const quotaBefore = quota;
        const permit = await control.admit({ tenantId: tenant.id, clientKind: 'user', clientId: 'u1', requestId: randomUUID() }, { countsQuota: true });
        // The limit it answers with was read after the request began: never the one before it.
        expect(permit.quota?.limit).toBeGreaterThan(quotaBefore);
        await permit.release();
        const reservation = await control.reserve(tenant.id, randomUUID(), 1_000);
        await reservation.settle(10);
      }
    } finally {
      control.close();
    }
  });
});
