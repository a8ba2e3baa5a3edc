/** What a task on the CPU pool is for: reading an upload's text, or anything else. */
export type CpuLane = 'upload' | 'other';

interface Waiter {
  lane: CpuLane;
  grant(): void;
}

/**
 * The CPU pool's threads as slots, handed out in the order they were asked for, so that a task
 * is only given to the pool when a thread is free for it: its time budget then measures its own
 * run, never its wait behind others. Reading uploads may hold all slots but one (one, with a
 * single thread): four hostile PDFs from one tenant had both threads, and another tenant's
 * question waited 45 s for its keywords; now such a question always finds a thread. An upload
 * waiting for its lane lets tasks behind it pass.
 */
export class ThreadSlots {
  private running = 0;
  private readingUploads = 0;
  private readonly waiting: Waiter[] = [];
  private readonly uploadSlots: number;

  constructor(private readonly threads: number) {
    this.uploadSlots = Math.max(1, threads - 1);
  }

  /** Resolves when a slot is free for `lane`, with the function that gives it back (once). */
  acquire(lane: CpuLane): Promise<() => void> {
    return new Promise((resolve) => {
      this.waiting.push({ lane, grant: () => resolve(this.releaser(lane)) });
      this.grantFree();
    });
  }

  private grantFree(): void {
    for (let i = 0; i < this.waiting.length && this.running < this.threads; ) {
      const waiter = this.waiting[i];
      if (waiter.lane === 'upload' && this.readingUploads >= this.uploadSlots) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.running++;
      if (waiter.lane === 'upload') this.readingUploads++;
      waiter.grant();
    }
  }

  private releaser(lane: CpuLane): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      if (lane === 'upload') this.readingUploads--;
      this.grantFree();
    };
  }
}
