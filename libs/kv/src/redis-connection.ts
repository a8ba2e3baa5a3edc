import Redis, { Cluster, ClusterNode, RedisOptions } from 'ioredis';

/** How long a closing client waits for its socket to close before destroying it (see connectRedis). */
const DISCONNECT_TIMEOUT_MS = 200;

/** Where limits live: one Redis (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES). */
export type RedisTarget = { url: string } | { clusterNodes: string[] };

/** The configured target, or undefined for the in-process stores. */
export function redisTargetOf(redis: { url?: string; clusterNodes?: string[] }): RedisTarget | undefined {
  if (redis.url) return { url: redis.url };
  if (redis.clusterNodes?.length) return { clusterNodes: redis.clusterNodes };
  return undefined;
}

export function describeRedisTarget(target: RedisTarget): string {
  return 'url' in target ? 'Redis (REDIS_URL)' : `Redis Cluster (REDIS_CLUSTER_NODES, ${target.clusterNodes.length} seed nodes)`;
}

/**
 * Opens a client that fails fast instead of queueing commands while Redis is down: a limit
 * check that cannot reach Redis must answer (spending requests fail closed), and readiness
 * must report it. ioredis reconnects by itself; errors surface through the commands.
 * `clusterKeyPrefix` is put before every key on a Cluster only (see RedisLimitStore).
 *
 * `disconnectTimeout`: closing ends the socket and destroys it if it has not closed within this
 * time, on a timer only the socket's `close` clears. While Redis is unreachable the socket closed
 * already and never closes again, so ioredis's 2 s held a stopping process for 2 s (in tests,
 * jest's "worker process has failed to exit gracefully"). Loci never waits for a reply at
 * close (it disconnects, it does not QUIT), so a short wait loses nothing.
 */
export function connectRedis(target: RedisTarget, options: { clusterKeyPrefix?: string } = {}): Redis | Cluster {
  const failFast: RedisOptions = { maxRetriesPerRequest: 1, enableOfflineQueue: false, disconnectTimeout: DISCONNECT_TIMEOUT_MS };
  const client =
    'url' in target
      ? new Redis(target.url, failFast)
      : new Cluster(target.clusterNodes.map(seedNode), {
          enableOfflineQueue: false,
          keyPrefix: options.clusterKeyPrefix,
          redisOptions: { ...failFast, ...clusterCredentials(target.clusterNodes[0]) },
        });
  client.on('error', () => undefined);
  return client;
}

function parse(node: string): URL {
  return new URL(node.includes('://') ? node : `redis://${node}`);
}

function seedNode(node: string): ClusterNode {
  const url = parse(node);
  return { host: url.hostname, port: Number(url.port) };
}

/** Credentials and TLS of the first seed node, for every node (a cluster has one ACL). */
function clusterCredentials(first: string): RedisOptions {
  const url = parse(first);
  return {
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.protocol === 'rediss:' ? { tls: { servername: url.hostname } } : {}),
  };
}
