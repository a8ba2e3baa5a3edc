import Redis, { Cluster } from 'ioredis';

/** Keys asked for per SCAN step and removed per UNLINK: bounds each round trip, not the total. */
const SCAN_COUNT = 500;

/**
 * Removes every key matching `pattern`, found with SCAN (never KEYS, which blocks the server
 * for the whole keyspace). On a Redis Cluster a SCAN walks one node only, so every master is
 * scanned; a tenant's keys share a hash slot, so each UNLINK names keys of one slot. UNLINK
 * frees the memory off Redis's main thread. Keys written while the scan runs may be missed:
 * the caller makes sure nothing writes them any more (a deleted tenant's requests are refused).
 */
export async function unlinkKeysMatching(client: Redis | Cluster, pattern: string): Promise<number> {
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  let removed = 0;
  for (const node of nodes) {
    const stream = node.scanStream({ match: pattern, count: SCAN_COUNT });
    for await (const keys of stream as AsyncIterable<string[]>) {
      if (keys.length > 0) removed += await node.unlink(...keys);
    }
  }
  return removed;
}
