import { ThreadSlots } from './thread-slots';

/** Acquires and records the order in which slots are granted. */
function recorder(slots: ThreadSlots) {
  const granted: string[] = [];
  const releases = new Map<string, () => void>();
  const ask = (name: string, tenant?: string, lane: 'upload' | 'other' = 'other') =>
    void slots.acquire(lane, tenant).then((release) => {
      granted.push(name);
      releases.set(name, release);
    });
  const release = async (name: string) => {
    releases.get(name)!();
    await Promise.resolve();
    await Promise.resolve();
  };
  return { granted, ask, release, settle: () => new Promise((resolve) => setImmediate(resolve)) };
}

describe('ThreadSlots: the CPU pool threads, tenants in turn', () => {
  it("gives the next free thread to another tenant's task, not to the rest of one tenant's backlog", async () => {
    const slots = new ThreadSlots(1);
    const r = recorder(slots);
    for (let i = 1; i <= 5; i++) r.ask(`a${i}`, 'A');
    r.ask('b1', 'B');
    await r.settle();
    expect(r.granted).toEqual(['a1']);
    // First in, first out would give the thread to a2..a5 before b1.
    for (const next of ['a1', 'b1', 'a2', 'a3', 'a4']) {
      await r.release(next);
      await r.settle();
    }
    expect(r.granted).toEqual(['a1', 'b1', 'a2', 'a3', 'a4', 'a5']);
  });

  it('alternates two tenants with backlogs, each in its own order', async () => {
    const slots = new ThreadSlots(1);
    const r = recorder(slots);
    for (let i = 1; i <= 3; i++) r.ask(`a${i}`, 'A');
    for (let i = 1; i <= 3; i++) r.ask(`b${i}`, 'B');
    await r.settle();
    for (let n = 0; n < 5; n++) {
      await r.release(r.granted[r.granted.length - 1]);
      await r.settle();
    }
    expect(r.granted).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
  });

  it('keeps a thread from uploads, and lets a tenant\'s other task pass its own waiting upload', async () => {
    const slots = new ThreadSlots(2);
    const r = recorder(slots);
    r.ask('upload1', 'A', 'upload');
    r.ask('upload2', 'A', 'upload');
    r.ask('keywords', 'A');
    await r.settle();
    // One of two threads may read uploads: the second upload waits, the question passes it.
    expect(r.granted).toEqual(['upload1', 'keywords']);
    expect(slots.queued).toBe(1);
    await r.release('upload1');
    await r.settle();
    expect(r.granted).toEqual(['upload1', 'keywords', 'upload2']);
  });

  it('serves work without a tenant in turn as well', async () => {
    const slots = new ThreadSlots(1);
    const r = recorder(slots);
    r.ask('a1', 'A');
    r.ask('a2', 'A');
    r.ask('startup');
    await r.settle();
    await r.release('a1');
    await r.settle();
    expect(r.granted).toEqual(['a1', 'startup']);
  });

  it('keeps slots past a tenant\'s share free for other tenants, however many it asks for', async () => {
    const slots = new ThreadSlots(3, { perTenant: 2 });
    const r = recorder(slots);
    for (let i = 1; i <= 4; i++) r.ask(`a${i}`, 'A');
    await r.settle();
    // A holds its two; the third slot stays free while A's a3 and a4 wait.
    expect(r.granted).toEqual(['a1', 'a2']);
    r.ask('b1', 'B');
    await r.settle();
    expect(r.granted).toEqual(['a1', 'a2', 'b1']);
    // A freed slot goes back to A's line, up to its share.
    await r.release('a1');
    await r.settle();
    expect(r.granted).toEqual(['a1', 'a2', 'b1', 'a3']);
    await r.release('b1');
    await r.settle();
    expect(r.granted).toEqual(['a1', 'a2', 'b1', 'a3']);
    await r.release('a2');
    await r.settle();
    expect(r.granted).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
  });

  it('shrinks a tenant to an equal share while another holds or waits for a slot, and gives its share back after', async () => {
    const slots = new ThreadSlots(3, { perTenant: 2, sharedWhenBusy: true });
    const r = recorder(slots);
    for (let i = 1; i <= 5; i++) r.ask(`a${i}`, 'A');
    await r.settle();
    // Alone, A holds its two of three.
    expect(r.granted).toEqual(['a1', 'a2']);
    r.ask('b1', 'B');
    await r.settle();
    expect(r.granted).toEqual(['a1', 'a2', 'b1']);
    // Beside B, A's share is one of three: a freed slot of A's starts nothing of A's while A still holds one.
    await r.release('a1');
    await r.settle();
    expect(r.granted).toEqual(['a1', 'a2', 'b1']);
    // Under its share again, A starts its next.
    await r.release('a2');
    await r.settle();
    expect(r.granted).toEqual(['a1', 'a2', 'b1', 'a3']);
    // B done: A alone again, back to two.
    await r.release('b1');
    await r.settle();
    expect(r.granted).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
  });

  it('without sharedWhenBusy, keeps each tenant at perTenant beside others', async () => {
    const slots = new ThreadSlots(3, { perTenant: 2 });
    const r = recorder(slots);
    for (let i = 1; i <= 3; i++) r.ask(`a${i}`, 'A');
    r.ask('b1', 'B');
    await r.settle();
    await r.release('a1');
    await r.settle();
    expect(r.granted).toEqual(['a1', 'a2', 'b1', 'a3']);
  });

  it('with lingerMs, keeps a tenant contending between its bursts, and gives the share back once it has been gone that long', async () => {
    let now = 0;
    const slots = new ThreadSlots(3, { perTenant: 2, sharedWhenBusy: true, lingerMs: 1_000, now: () => now });
    const r = recorder(slots);
    r.ask('b1', 'B');
    await r.settle();
    await r.release('b1');
    // B asked 300 ms ago and holds nothing now: A still gets an equal share, one of three.
    now = 300;
    for (let i = 1; i <= 4; i++) r.ask(`a${i}`, 'A');
    await r.settle();
    expect(r.granted).toEqual(['b1', 'a1']);
    // B's next question 900 ms after its last: it starts at once, beside one of A's, not two.
    now = 900;
    r.ask('b2', 'B');
    await r.settle();
    expect(r.granted).toEqual(['b1', 'a1', 'b2']);
    await r.release('b2');
    await r.release('a1');
    await r.settle();
    expect(r.granted).toEqual(['b1', 'a1', 'b2', 'a2']);
    // Past lingerMs since B's last slot, A alone again: its next release lets it back to two.
    now = 2_000;
    await r.release('a2');
    await r.settle();
    expect(r.granted).toEqual(['b1', 'a1', 'b2', 'a2', 'a3', 'a4']);
  });

  describe('pauseForLighter', () => {
    it("pauses a step of a tenant with more waiting while a tenant with none waiting holds a slot, until it gives it back", async () => {
      const slots = new ThreadSlots(3, { perTenant: 2, sharedWhenBusy: true, maxPauseMs: 60_000 });
      const r = recorder(slots);
      for (let i = 1; i <= 4; i++) r.ask(`a${i}`, 'A');
      await r.settle();
      // A alone, with more waiting: no one lighter to wait for.
      expect(slots.pauseForLighter('A')).toBeUndefined();
      r.ask('b1', 'B');
      await r.settle();
      expect(r.granted).toEqual(['a1', 'a2', 'b1']);
      // B (nothing waiting) never pauses; A's next step waits for B's question.
      expect(slots.pauseForLighter('B')).toBeUndefined();
      let resumed = false;
      void slots.pauseForLighter('A')!.then(() => (resumed = true));
      await r.settle();
      expect(resumed).toBe(false);
      expect(slots.pausedSteps).toBe(1);
      await r.release('b1');
      await r.settle();
      expect(resumed).toBe(true);
      expect(slots.pausedSteps).toBe(0);
    });

    it('does not pause while both tenants have more waiting (they share the slots), and resumes when the lighter one gets a backlog', async () => {
      const slots = new ThreadSlots(2, { perTenant: 1, sharedWhenBusy: true, maxPauseMs: 60_000 });
      const r = recorder(slots);
      r.ask('a1', 'A');
      r.ask('a2', 'A');
      r.ask('b1', 'B');
      await r.settle();
      expect(r.granted).toEqual(['a1', 'b1']);
      let resumed = false;
      void slots.pauseForLighter('A')!.then(() => (resumed = true));
      await r.settle();
      expect(resumed).toBe(false);
      // B now has more waiting too: neither is lighter, A's step goes on.
      r.ask('b2', 'B');
      await r.settle();
      expect(resumed).toBe(true);
      expect(slots.pauseForLighter('A')).toBeUndefined();
    });

    it('resumes after maxPauseMs however long the lighter tenant holds its slot, and never pauses with maxPauseMs 0', async () => {
      jest.useFakeTimers();
      try {
        const slots = new ThreadSlots(2, { perTenant: 1, sharedWhenBusy: true, maxPauseMs: 200 });
        const granted: string[] = [];
        void slots.acquire('other', 'A').then(() => granted.push('a1'));
        void slots.acquire('other', 'A').then(() => granted.push('a2'));
        void slots.acquire('other', 'B').then(() => granted.push('b1'));
        await Promise.resolve();
        await Promise.resolve();
        expect(granted).toEqual(['a1', 'b1']);
        let resumed = false;
        void slots.pauseForLighter('A')!.then(() => (resumed = true));
        jest.advanceTimersByTime(199);
        await Promise.resolve();
        expect(resumed).toBe(false);
        jest.advanceTimersByTime(1);
        await Promise.resolve();
        expect(resumed).toBe(true);
        expect(slots.pausedSteps).toBe(0);
        const never = new ThreadSlots(2, { perTenant: 1, sharedWhenBusy: true, maxPauseMs: 0 });
        void never.acquire('other', 'A');
        void never.acquire('other', 'A');
        void never.acquire('other', 'B');
        await Promise.resolve();
        expect(never.pauseForLighter('A')).toBeUndefined();
      } finally {
        jest.useRealTimers();
      }
    });
  });
});
