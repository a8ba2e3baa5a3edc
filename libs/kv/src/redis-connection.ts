import Redis, { Cluster, ClusterNode, RedisOptions } from 'ioredis';

/** How long a closing client waits for its socket to close before destroying it (see connectRedis). */
const DISCONNECT_TIMEOUT_MS = 200;

/** How long a command waits for Redis's reply by default (LOCI_REDIS_COMMAND_TIMEOUT_MS). */
export const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;

/**
 * Where limits live: one Redis (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES), and how
 * long a command may wait for its reply (default DEFAULT_COMMAND_TIMEOUT_MS).
 */
export type RedisTarget = ({ url: string } | { clusterNodes: string[] }) & { commandTimeoutMs?: number };

/** The configured target, or undefined for the in-process stores. */
export function redisTargetOf(redis: { url?: string; clusterNodes?: string[]; commandTimeoutMs?: number }): RedisTarget | undefined {
  if (redis.url) return { url: redis.url, commandTimeoutMs: redis.commandTimeoutMs };
  if (redis.clusterNodes?.length) return { clusterNodes: redis.clusterNodes, commandTimeoutMs: redis.commandTimeoutMs };
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
 *
 * `commandTimeout`: a Redis that stopped answering without closing its connection (a paused or
 * swapping server, a partition that drops packets) left each command waiting for as long as TCP
 * took to give up, and every spending request with it. Past the timeout the command fails, as a
 * refused one does: spending requests answer 503 limits_unavailable. Loci sends no blocking
 * command, so any reply slower than this is a fault. A command that timed out may still run on
 * Redis later, as one sent just before a connection dropped may: reservations and slots expire.
 */
export function connectRedis(target: RedisTarget, options: { clusterKeyPrefix?: string } = {}): Redis | Cluster {
  const failFast: RedisOptions = {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    commandTimeout: target.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
  };
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
