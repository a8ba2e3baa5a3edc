import { setPriority } from 'node:os';

/**
 * Lowers the calling thread's CPU priority to `nice` (0-19). On Linux a nice value belongs to a
 * thread, not the process (setpriority(2), "Bugs"), so a CPU pool thread can step back for the
 * request thread and PostgreSQL without touching either: when both cores are wanted, the
 * scheduler gives a nice-10 thread about a tenth of a nice-0 one's share, so the pool's batch
 * work (an upload's PDF, a document's extraction) yields to every tenant's questions, and when
 * nothing else runs it has the cores to itself. Elsewhere the same call would lower the whole
 * process (macOS) or mean something else (Windows), so it is left alone. Returns whether it
 * lowered anything.
 */
export function lowerThreadPriority(nice: number, platform: NodeJS.Platform = process.platform): boolean {
  if (platform !== 'linux' || nice <= 0) return false;
  try {
    setPriority(nice);
    return true;
  } catch {
    // A sandbox may refuse setpriority; the thread runs at the process's priority, as before.
    return false;
  }
}
