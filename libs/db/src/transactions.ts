import type { Db } from './database';
import { isTransactionConflict } from './postgres-errors';

/**
 * Runs `work` in a transaction, and runs it again when the transaction loses a lock conflict
 * (a deadlock's victim, a serialization failure): the store rolled all of it back, so running
 * it again is safe, and usually succeeds once the other transaction has committed. Up to
 * `attempts` runs, after a short random pause each; the last conflict is thrown.
 */
export async function transactionRetryingConflicts<T>(
  db: Db,
  work: (tx: Db) => Promise<T>,
  options: { attempts?: number; pauseMs?: number } = {},
): Promise<T> {
  const attempts = options.attempts ?? 5;
  const pauseMs = options.pauseMs ?? 50;
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction((tx) => work(tx as unknown as Db));
    } catch (error) {
      if (attempt >= attempts || !isTransactionConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, pauseMs * attempt * (0.5 + Math.random())));
    }
  }
}
