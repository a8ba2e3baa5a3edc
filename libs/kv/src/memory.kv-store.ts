import { KvStore } from './kv-store';

interface Entry {
  value: string;
  expiresAt: number | null;
}

/**
 * In-process store for the embedded default. Correct for a single process only: two API
 * processes would each enforce their own limits, which the boot log says.
 */
export class MemoryKvStore implements KvStore {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  async ping(): Promise<void> {}

  async get(key: string): Promise<string | null> {
    return this.live(key)?.value ?? null;
  }

  async set(key: string, value: string, options?: { ttlMs?: number }): Promise<void> {
    this.entries.set(key, { value, expiresAt: options?.ttlMs ? this.now() + options.ttlMs : null });
  }

  async del(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async incrBy(key: string, by: number, options?: { ttlMs?: number }): Promise<number> {
    const entry = this.live(key);
    const current = entry ? Number(entry.value) : 0;
    if (!Number.isInteger(current)) throw new Error(`value at ${key} is not an integer`);
    const next = current + by;
    this.entries.set(key, {
      value: String(next),
      expiresAt: entry?.expiresAt ?? (options?.ttlMs ? this.now() + options.ttlMs : null),
    });
    return next;
  }

  async ttlMs(key: string): Promise<number> {
    const entry = this.live(key);
    if (!entry) return -2;
    return entry.expiresAt === null ? -1 : entry.expiresAt - this.now();
  }

  async close(): Promise<void> {
    this.entries.clear();
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt !== null && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }
}
