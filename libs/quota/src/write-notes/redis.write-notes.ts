import { assertWriteNote, SharedWriteNotes, WriteNote } from '@loci/db';
import type { ScriptRunner } from '../attempts/redis.attempt-counter';
import { limitKeys } from '../limit-keys';
import { LOOK_UP_WRITE_NOTE, RAISE_WRITE_NOTE } from './write-note-scripts';

/**
 * Graphs' write notes in Redis, on the limit store's connection: each operation one script over
 * one tenant's keys (its hash tag: one Cluster slot), so two instances' raises of one graph keep
 * the later position whatever their order.
 */
export class RedisWriteNotes implements SharedWriteNotes {
  readonly kind = 'redis' as const;

  constructor(private readonly run: ScriptRunner) {}

  async raise(note: WriteNote): Promise<void> {
    assertWriteNote(note);
    await this.run(
      RAISE_WRITE_NOTE,
      [limitKeys.writeNote(note.tenantId, note.graphId), limitKeys.writeNotesMade(note.tenantId), limitKeys.writeNoteOverflow(note.tenantId)],
      [toHex(note.lsn), String(note.ttlMs), String(note.maxPerTenant)],
    );
  }

  async lookUp(tenantId: string, graphId: number): Promise<bigint | null> {
    const reply = await this.run(LOOK_UP_WRITE_NOTE, [limitKeys.writeNote(tenantId, graphId), limitKeys.writeNoteOverflow(tenantId)], []);
    return typeof reply === 'string' ? BigInt(`0x${reply}`) : null;
  }
}

/** 16 hex digits: the scripts compare positions by halves. */
const toHex = (lsn: bigint) => lsn.toString(16).padStart(16, '0');
