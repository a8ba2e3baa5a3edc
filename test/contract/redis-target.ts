import Redis, { Cluster } from 'ioredis';
import type { RedisTarget } from '@loci/kv';

/**
 * The Redis the limit contract suites run on: a Redis Cluster when REDIS_CLUSTER_NODES names
 * one (`.ci/redis-cluster.sh` starts three masters on loopback), else REDIS_URL, else none (the
 * in-process stores).
 */
export function contractRedisTarget(): { label: string; target?: RedisTarget } {
  const clusterNodes = (process.env.REDIS_CLUSTER_NODES ?? '').split(',').map((node) => node.trim()).filter(Boolean);
  if (clusterNodes.length) return { label: 'Redis Cluster', target: { clusterNodes } };
  if (process.env.REDIS_URL) return { label: 'Redis', target: { url: process.env.REDIS_URL } };
  return { label: 'memory' };
}

/** Every key matching `pattern` with its remaining TTL, on every master of a Cluster. */
export async function keysMatching(target: RedisTarget, pattern: string): Promise<Array<{ key: string; pttl: number }>> {
  return withEveryNode(target, async (node) => {
    const found: Array<{ key: string; pttl: number }> = [];
    for await (const keys of node.scanStream({ match: pattern, count: 500 }) as AsyncIterable<string[]>) {
      for (const key of keys) found.push({ key, pttl: await node.pttl(key) });
    }
    return found;
  });
}

/** Removes the keys a run left behind (Redis is shared between runs). */
export async function removeKeysMatching(target: RedisTarget, pattern: string): Promise<void> {
  await withEveryNode(target, async (node) => {
    for await (const keys of node.scanStream({ match: pattern, count: 500 }) as AsyncIterable<string[]>) {
      // One DEL per key: on a Cluster node, keys of different slots cannot share a command.
      for (const key of keys) await node.del(key);
    }
    return [];
  });
}

async function withEveryNode<T>(target: RedisTarget, visit: (node: Redis) => Promise<T[]>): Promise<T[]> {
  if ('url' in target) {
    const redis = new Redis(target.url);
    try {
      return await visit(redis);
    } finally {
      redis.disconnect();
    }
  }
  const cluster = new Cluster(target.clusterNodes.map((node) => node.replace(/^rediss?:\/\//, '')));
  try {
    await new Promise<void>((resolve, reject) => {
      cluster.once('ready', resolve);
      cluster.once('error', reject);
    });
    const results = await Promise.all(cluster.nodes('master').map(visit));
    return results.flat();
  } finally {
    cluster.disconnect();
  }
}
