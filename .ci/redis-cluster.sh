#!/usr/bin/env bash
# A three-master Redis Cluster on loopback for the limit store's contract suite:
#   REDIS_CLUSTER_NODES=127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003
# Idempotent: quick when the cluster is already up and healthy. No persistence (tests only);
# node configs live under ${LOCI_REDIS_CLUSTER_DIR:-/tmp/loci-redis-cluster}.
set -euo pipefail

PORTS=(7001 7002 7003)
HOST=127.0.0.1
DIR="${LOCI_REDIS_CLUSTER_DIR:-/tmp/loci-redis-cluster}"

log() { printf '[redis-cluster] %s\n' "$*"; }
die() { printf '[redis-cluster] ERROR: %s\n' "$*" >&2; exit 1; }

cluster_ok() {
  [[ "$(redis-cli -h "$HOST" -p "${PORTS[0]}" cluster info 2>/dev/null | tr -d '\r' | grep '^cluster_state:')" == "cluster_state:ok" ]]
}

command -v redis-server >/dev/null || die "redis-server not found: is Redis installed?"
if cluster_ok; then
  log "up on $HOST:${PORTS[0]}-${PORTS[-1]}"
  exit 0
fi

mkdir -p "$DIR"
for port in "${PORTS[@]}"; do
  if [[ "$(redis-cli -h "$HOST" -p "$port" ping 2>/dev/null || true)" != "PONG" ]]; then
    # A node config from an earlier, dead cluster would make the node refuse to join a new one.
    rm -f "$DIR/nodes-$port.conf"
    redis-server --bind "$HOST" --port "$port" --cluster-enabled yes \
      --cluster-config-file "$DIR/nodes-$port.conf" --cluster-node-timeout 5000 \
      --dir "$DIR" --save '' --appendonly no --daemonize yes \
      --logfile "$DIR/redis-$port.log" >/dev/null
  fi
done
for port in "${PORTS[@]}"; do
  for ((i = 0; i < 40; i++)); do
    [[ "$(redis-cli -h "$HOST" -p "$port" ping 2>/dev/null || true)" == "PONG" ]] && break
    sleep 0.25
  done
  [[ "$(redis-cli -h "$HOST" -p "$port" ping 2>/dev/null || true)" == "PONG" ]] || die "node $port did not start (see $DIR/redis-$port.log)"
done

# Nodes that already hold slots belong to a cluster that is still forming: only wait for it.
if [[ "$(redis-cli -h "$HOST" -p "${PORTS[0]}" cluster info | tr -d '\r' | grep '^cluster_slots_assigned:')" == "cluster_slots_assigned:0" ]]; then
  log "creating the cluster"
  redis-cli --cluster create "${PORTS[@]/#/$HOST:}" --cluster-replicas 0 --cluster-yes >/dev/null
fi
for ((i = 0; i < 80; i++)); do
  if cluster_ok; then
    log "up on $HOST:${PORTS[0]}-${PORTS[-1]}"
    exit 0
  fi
  sleep 0.25
done
die "the cluster did not reach cluster_state:ok within 20s"
