/** What a task on the CPU pool is for: reading an upload's text, or anything else. */
export type CpuLane = 'upload' | 'other';

interface Waiter {
  lane: CpuLane;
  grant(): void;
}

/** Work of `tenant` paused between its steps (pauseForLighter) until `resume`. */
interface Paused {
  tenant: string;
  resume(): void;
}

/** The key of work whose tenant is not known (start-up, maintenance). */
const NO_TENANT = '';

/** Tenants whose last turn is remembered (a few hundred KB at most). */
const MAX_REMEMBERED = 10_000;

export interface ThreadSlotsOptions {
  /** The most slots one tenant may hold at once (default all). */
  perTenant?: number;
  /** Equal shares while tenants contend (see the constructor). */
  sharedWhenBusy?: boolean;
  /**
   * With sharedWhenBusy: a tenant still counts as contending this long after its last slot was
   * given back (default 0). A tenant whose work comes in short bursts (a question every few
   * hundred ms) is then not absent between them, and a flood does not grow back into the gaps
   * only to be running at twice its share when the next one arrives.
   */
  lingerMs?: number;
  /** pauseForLighter's longest pause at one step, in ms (default 500). */
  maxPauseMs?: number;
  /** The clock, in ms (tests). */
  now?: () => number;
}

/**
 * The CPU pool's threads as slots, so that a task is only given to the pool when a thread is
 * free for it: its time budget then measures its own run, never its wait behind others.
 *
 * Tenants take turns (issue 34.2): each tenant's tasks wait in their own line, in the order they
 * were asked for, and a free thread goes to the tenant served longest ago that has a task able
 * to run. A tenant with a hundred chunks to extract gets one thread in
 * turn with every other tenant's question, instead of making them wait behind its hundred.
 *
 * Reading uploads may hold all slots but one (one, with a single thread): four hostile PDFs from
 * one tenant had both threads, and another tenant's question waited 45 s for its keywords; now
 * such a question always finds a thread. An upload waiting for its lane lets its tenant's tasks
 * behind it pass.
 */
export class ThreadSlots {
  private running = 0;
  private readingUploads = 0;
  /** Each tenant's waiting tasks, in the order asked for. */
  private readonly waiting = new Map<string, Waiter[]>();
  /**
   * When each tenant was last given a thread (a count of grants). Kept while its line is empty:
   * a tenant whose tasks come one at a time (a document's chunks, each after the last) must not
   * count as new each time, or it would always go first.
   */
  private readonly lastServed = new Map<string, number>();
  private grants = 0;
  private readonly uploadSlots: number;
  /** Slots each tenant holds now (tenants holding none are not kept). */
  private readonly heldBy = new Map<string, number>();
  /** When tenants holding nothing now last gave a slot back, oldest first (only within lingerMs). */
  private readonly releasedAt = new Map<string, number>();
  private readonly perTenant: number;
  private readonly sharedWhenBusy: boolean;
  private readonly lingerMs: number;
  private readonly maxPauseMs: number;
  private readonly now: () => number;
  /** Work paused between its steps, resumed on the first release or grant after which it need not wait. */
  private paused: Paused[] = [];

  /**
   * `perTenant`: the most slots one tenant may hold at once (default all). Below `threads`, the
   * rest are kept for other tenants even while they are free, so that a tenant arriving beside
   * another's flood starts at once instead of waiting for one of the flood's tasks to end.
   *
   * `sharedWhenBusy`: while more than one tenant holds or waits for a slot, each may start work
   * only below an equal share of the slots (at least one): max-min fairness. A tenant alone keeps
   * `perTenant`. Work already running is never cut short; a tenant over its share starts nothing
   * until it is back under it. For question turns (slots = cores + 1): beside another tenant's
   * question, a flood runs one question instead of two, so the other's shares the cores with one.
   * `lingerMs` keeps a tenant contending between its bursts.
   */
  constructor(
    private readonly threads: number,
    options: ThreadSlotsOptions = {},
  ) {
    this.uploadSlots = Math.max(1, threads - 1);
    this.perTenant = options.perTenant ?? threads;
    this.sharedWhenBusy = options.sharedWhenBusy ?? false;
    this.lingerMs = options.lingerMs ?? 0;
    this.maxPauseMs = options.maxPauseMs ?? 500;
    this.now = options.now ?? (() => performance.now());
  }

  /** Resolves when a slot is free for `lane`, for `tenant`'s work, with the function that gives it back (once). */
  acquire(lane: CpuLane, tenant: string = NO_TENANT): Promise<() => void> {
    return new Promise((resolve) => {
      const line = this.waiting.get(tenant) ?? [];
      line.push({ lane, grant: () => resolve(this.releaser(lane, tenant)) });
      this.waiting.set(tenant, line);
      this.grantFree();
    });
  }

  /**
   * Between two steps of work holding a slot (a question's statements): while `tenant` has more
   * waiting and another tenant that has nothing waiting holds a slot, `tenant`'s work pauses
   * until that lighter tenant holds none (or maxPauseMs has passed), so the lighter tenant's work
   * runs on the cores nearly as if alone instead of sharing them with a flood's (least attained
   * service first). Undefined when there is no reason to wait. Never circular: a tenant with
   * nothing waiting never pauses, and only waits on tenants with nothing waiting.
   */
  pauseForLighter(tenant: string = NO_TENANT): Promise<void> | undefined {
    if (this.maxPauseMs <= 0 || !this.mustPause(tenant)) return undefined;
    return new Promise((resolve) => {
      const timer = setTimeout(() => resume(), this.maxPauseMs);
      const resume = () => {
        clearTimeout(timer);
        this.paused = this.paused.filter((entry) => entry !== paused);
        resolve();
      };
      const paused: Paused = { tenant, resume };
      this.paused.push(paused);
    });
  }

  /** Steps of work paused now (pauseForLighter). */
  get pausedSteps(): number {
    return this.paused.length;
  }

  private mustPause(tenant: string): boolean {
    if (!this.waiting.has(tenant)) return false;
    for (const holder of this.heldBy.keys()) if (holder !== tenant && !this.waiting.has(holder)) return true;
    return false;
  }

  /** Resumes paused steps that need not wait any longer. */
  private resumePaused(): void {
    for (const entry of [...this.paused]) if (!this.mustPause(entry.tenant)) entry.resume();
  }

  /** Tasks waiting for a thread, of every tenant. */
  get queued(): number {
    let count = 0;
    for (const line of this.waiting.values()) count += line.length;
    return count;
  }

  private grantFree(): void {
    while (this.running < this.threads && this.grantNext());
    if (this.paused.length > 0) this.resumePaused();
  }

  /**
   * Gives a thread to the tenant served longest ago (never served first; ties in the order they
   * asked) among those with a task that may run; false when none may.
   */
  private grantNext(): boolean {
    const share = this.share();
    let chosen: { tenant: string; line: Waiter[]; index: number; served: number } | undefined;
    for (const [tenant, line] of this.waiting) {
      if ((this.heldBy.get(tenant) ?? 0) >= share) continue;
      const index = line.findIndex((waiter) => waiter.lane !== 'upload' || this.readingUploads < this.uploadSlots);
      if (index < 0) continue;
      const served = this.lastServed.get(tenant) ?? -1;
      if (!chosen || served < chosen.served) chosen = { tenant, line, index, served };
    }
    if (!chosen) return false;
    const [waiter] = chosen.line.splice(chosen.index, 1);
    if (chosen.line.length === 0) this.waiting.delete(chosen.tenant);
    this.noteServed(chosen.tenant);
    this.heldBy.set(chosen.tenant, (this.heldBy.get(chosen.tenant) ?? 0) + 1);
    this.running++;
    if (waiter.lane === 'upload') this.readingUploads++;
    waiter.grant();
    return true;
  }

  /** The most slots a tenant may hold now: perTenant, or an equal share while tenants contend (sharedWhenBusy). */
  private share(): number {
    if (!this.sharedWhenBusy) return this.perTenant;
    let active = this.heldBy.size;
    for (const tenant of this.waiting.keys()) if (!this.heldBy.has(tenant)) active++;
    active += this.lingering();
    return active > 1 ? Math.min(this.perTenant, Math.max(1, Math.floor(this.threads / active))) : this.perTenant;
  }

  /**
   * Tenants holding and waiting for nothing that gave a slot back within lingerMs; older entries
   * are dropped here, so the map holds only tenants of the last lingerMs.
   */
  private lingering(): number {
    if (this.releasedAt.size === 0) return 0;
    const since = this.now() - this.lingerMs;
    let count = 0;
    for (const [tenant, at] of this.releasedAt) {
      if (at < since) this.releasedAt.delete(tenant);
      else if (!this.heldBy.has(tenant) && !this.waiting.has(tenant)) count++;
    }
    return count;
  }

  private noteServed(tenant: string): void {
    this.lastServed.delete(tenant);
    this.lastServed.set(tenant, this.grants++);
    // Bounded: past MAX_REMEMBERED tenants the least recently served are forgotten (they count as new).
    if (this.lastServed.size > MAX_REMEMBERED) {
      for (const forgotten of [...this.lastServed.keys()].slice(0, this.lastServed.size - MAX_REMEMBERED)) this.lastServed.delete(forgotten);
    }
  }

  private releaser(lane: CpuLane, tenant: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const held = (this.heldBy.get(tenant) ?? 1) - 1;
      if (held > 0) this.heldBy.set(tenant, held);
      else this.heldBy.delete(tenant);
      if (this.lingerMs > 0) {
        // Re-inserted, so the map stays in release order.
        this.releasedAt.delete(tenant);
        this.releasedAt.set(tenant, this.now());
      }
      this.running--;
      if (lane === 'upload') this.readingUploads--;
      this.grantFree();
    };
  }
}
