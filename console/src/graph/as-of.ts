import type { Fact } from '../api';

type Times = Pick<Fact, 'valid_at' | 'invalid_at'>;

/**
 * Whether a fact was true at `instant` by everything known now: valid_at <= instant < invalid_at,
 * an unknown bound open, superseded since or not. The API's `as_of` reads facts the same way
 * (liveEdge in libs/retrieval/src/visibility.sql.ts), so the graph at an instant shows what a
 * question asked `as_of` that instant would be answered from.
 */
export function trueAt(fact: Times, instant: Date): boolean {
  const t = instant.getTime();
  return (fact.valid_at === null || Date.parse(fact.valid_at) <= t) && (fact.invalid_at === null || Date.parse(fact.invalid_at) > t);
}

/** The instants at which what was true changes (each fact's start and end), oldest first, once each. */
export function changeInstants(facts: Iterable<Times>): string[] {
  const instants = new Map<number, string>();
  for (const fact of facts) {
    for (const at of [fact.valid_at, fact.invalid_at]) if (at !== null) instants.set(Date.parse(at), at);
  }
  return [...instants.entries()].sort(([a], [b]) => a - b).map(([, at]) => at);
}
