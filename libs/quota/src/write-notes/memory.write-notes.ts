import { assertWriteNote, SharedWriteNotes, WriteNote } from '@loci/db';
import { limitKeys } from '../limit-keys';

interface Live<T> {
  value: T;
  expiresAt: number;
}

/**
 * Graphs' write notes in process (the embedded default: one process, so sharing is with itself).
 * Each method does its whole read-check-write without an await; it mirrors write-note-scripts.ts.
 */
export class MemoryWriteNotes implements SharedWriteNotes {
  readonly kind = 'memory' as const;
  // Insertion order is expiry order when every note lives as long (one router's note life): a
  // raised note is moved to the end, and the sweep stops at the first live one.
  private readonly notes = new Map<string, Live<bigint>>();
  private readonly made = new Map<string, Live<number>>(); // tenant's count key → notes made, in order of its window's start

  constructor(private readonly clock: () => number = Date.now) {}

  async raise(note: WriteNote): Promise<void> {
    assertWriteNote(note);
    const now = this.clock();
    this.sweep(now);
    let key = limitKeys.writeNote(note.tenantId, note.graphId);
    if (!live(this.notes, key, now)) {
      const madeKey = limitKeys.writeNotesMade(note.tenantId);
      const made = live(this.made, madeKey, now) ?? { value: 0, expiresAt: now + note.ttlMs };
      made.value += 1;
      this.made.set(madeKey, made);
      if (made.value > note.maxPerTenant) key = limitKeys.writeNoteOverflow(note.tenantId);
    }
    const current = live(this.notes, key, now);
    if (current && current.value >= note.lsn) return;
    this.notes.delete(key);
    this.notes.set(key, { value: note.lsn, expiresAt: now + note.ttlMs });
  }

  async lookUp(tenantId: string, graphId: number): Promise<bigint | null> {
    const now = this.clock();
    const graph = live(this.notes, limitKeys.writeNote(tenantId, graphId), now)?.value ?? null;
    const overflow = live(this.notes, limitKeys.writeNoteOverflow(tenantId), now)?.value ?? null;
    return graph !== null && (overflow === null || graph >= overflow) ? graph : overflow;
  }

  /** Forgets the notes of the keys under `prefix` (a tenant deleted); answers how many. */
  forget(prefix: string): number {
    let removed = 0;
    for (const map of [this.notes, this.made] as Map<string, unknown>[]) {
      for (const key of map.keys()) {
        if (key.startsWith(prefix)) {
          map.delete(key);
          removed++;
        }
      }
    }
    return removed;
  }

  clear(): void {
    this.notes.clear();
    this.made.clear();
  }

  private sweep(now: number): void {
    for (const [key, note] of this.notes) {
      if (note.expiresAt > now) break;
      this.notes.delete(key);
    }
    for (const [key, made] of this.made) {
      if (made.expiresAt > now) break;
      this.made.delete(key);
    }
  }
}

function live<T>(map: Map<string, Live<T>>, key: string, now: number): Live<T> | undefined {
  const entry = map.get(key);
  if (entry && entry.expiresAt <= now) {
    map.delete(key);
    return undefined;
  }
  return entry;
}
