#!/usr/bin/env bash
# A streaming replica of the CI cluster (127.0.0.1:5432) on 127.0.0.1:5433, for the read-replica
# e2e tests (issue 38): pg_basebackup -R of the running cluster into a directory of its own,
# started with the cluster's own binaries as the postgres user. Nothing of the primary changes
# but one pg_hba line that lets 127.0.0.1 open replication connections (trust, as the rest).
#
# Idempotent and quick: a replica already running in recovery is left as it is; one that is
# stopped is started; one that cannot start or catch up (its WAL recycled on the primary, a
# half-copied directory) is copied again. The copy of a CI cluster takes seconds.
# `replica.sh stop` stops it (fast shutdown), as the e2e test of a replica stopped mid-traffic does;
# `replica.sh caught-up [seconds]` also waits for it to replay the primary's position of now.
set -euo pipefail

PRIMARY_PORT=5432
REPLICA_PORT="${LOCI_REPLICA_PORT:-5433}"
PG_MAJOR="$(ls /etc/postgresql | grep -E '^[0-9]+$' | sort -n | tail -n 1)"
BIN="/usr/lib/postgresql/$PG_MAJOR/bin"
HBA="/etc/postgresql/$PG_MAJOR/main/pg_hba.conf"
DIR="${LOCI_REPLICA_DIR:-/var/lib/postgresql/$PG_MAJOR/loci-replica}"
SLOT=loci_replica

log() { printf '[replica] %s\n' "$*"; }
as_postgres() { runuser -u postgres -- "$@"; }
in_recovery() { [[ "$(psql -h 127.0.0.1 -p "$REPLICA_PORT" -U postgres -Atc 'SELECT pg_is_in_recovery()' postgres 2>/dev/null)" == t ]]; }

# `replica.sh caught-up [seconds]`: started if it stopped, then waits until it has replayed the
# primary's position of now. A long parallel test run writes WAL faster than a replica on a busy
# 2-core machine replays it; a test app's new database does not exist on the replica until its
# CREATE DATABASE is replayed, and the tests read the replica as down meanwhile.
caught_up() {
  local target replayed
  target="$(psql -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -Atc 'SELECT pg_current_wal_lsn()' postgres)"
  for _ in $(seq 1 $((${1:-300} * 2))); do
    replayed="$(psql -h 127.0.0.1 -p "$REPLICA_PORT" -U postgres -Atc "SELECT pg_last_wal_replay_lsn() >= '$target'::pg_lsn" postgres 2>/dev/null || true)"
    [[ "$replayed" == t ]] && { log "replica on :$REPLICA_PORT has replayed the primary's $target"; return 0; }
    sleep 0.5
  done
  log "replica on :$REPLICA_PORT has not replayed the primary's $target in ${1:-300} s; the end of its log:"
  tail -n 30 "$DIR/replica.log" || true
  return 1
}

if [[ "${1:-}" == stop ]]; then
  as_postgres "$BIN/pg_ctl" -D "$DIR" -m fast -w stop >/dev/null
  log "replica on :$REPLICA_PORT stopped"
  exit 0
fi

# Replication connections match only `replication` lines of pg_hba, never `all`.
if ! grep -qE '^host\s+replication\s+all\s+127\.0\.0\.1/32\s+trust' "$HBA"; then
  log "allowing replication connections from 127.0.0.1 in $HBA"
  printf 'host replication all 127.0.0.1/32 trust\n' >>"$HBA"
  psql -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -Atqc 'SELECT pg_reload_conf()' >/dev/null
fi

start() {
  as_postgres "$BIN/pg_ctl" -D "$DIR" -l "$DIR/replica.log" -w -t 60 start >/dev/null
}

# Debian keeps a cluster's configuration in /etc, so the copy has none: the replica's own, with
# the primary's settings that change what a query returns or how fast (time zone, text search
# default, memory). hot_standby answers reads; the feedback keeps the primary's vacuum from
# removing rows a replica's running question still reads (no query cancelled by a conflict).
# Returns 0 when the configuration changed.
configure() {
  local settings
  settings="$(psql -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -Atc "SELECT name || ' = ''' || current_setting(name) || '''' FROM pg_settings
    WHERE name IN ('TimeZone', 'DateStyle', 'default_text_search_config', 'shared_buffers', 'work_mem', 'effective_cache_size', 'max_connections') ORDER BY name" postgres)"
  {
    printf "listen_addresses = '127.0.0.1'\nport = %s\nhot_standby = on\nhot_standby_feedback = on\n" "$REPLICA_PORT"
    printf "unix_socket_directories = '/var/run/postgresql'\nautovacuum = off\n%s\n" "$settings"
  } >"$DIR/postgresql.conf.new"
  printf 'local all all trust\nhost all all 127.0.0.1/32 trust\n' >"$DIR/pg_hba.conf"
  chown postgres:postgres "$DIR/postgresql.conf.new" "$DIR/pg_hba.conf"
  if cmp -s "$DIR/postgresql.conf.new" "$DIR/postgresql.conf"; then
    rm "$DIR/postgresql.conf.new"
    return 1
  fi
  mv "$DIR/postgresql.conf.new" "$DIR/postgresql.conf"
}

# The replica streams through a physical replication slot: without one the primary recycles WAL
# at its next checkpoint whether or not the replica has it, and every CREATE DATABASE of the
# parallel test run forces a checkpoint. A replica a moment behind, or stopped by the e2e test,
# then asked for a removed segment forever ("requested WAL segment ... has already been
# removed"; the last CI read it as down for the rest of the run). The slot keeps what the replica
# has not replayed; a copy drops the slot of the copy before it.
primary_sql() { psql -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -Atc "$1" postgres; }
has_slot() {
  grep -qs "primary_slot_name = '$SLOT'" "$DIR/postgresql.auto.conf" &&
    [[ "$(primary_sql "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$SLOT'")" == 1 ]]
}

copy() {
  log "copying the cluster on :$PRIMARY_PORT into $DIR (pg_basebackup -R, slot $SLOT)"
  as_postgres "$BIN/pg_ctl" -D "$DIR" -m immediate stop >/dev/null 2>&1 || true
  for _ in $(seq 1 20); do
    primary_sql "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '$SLOT' AND active_pid IS NOT NULL" >/dev/null
    primary_sql "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '$SLOT' AND NOT active" >/dev/null
    [[ "$(primary_sql "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$SLOT'")" == 0 ]] && break
    sleep 0.5
  done
  rm -rf "$DIR"
  install -d -o postgres -g postgres -m 700 "$DIR"
  as_postgres "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$DIR" -R -C -S "$SLOT" -X stream --checkpoint=fast
  configure || true
}

if in_recovery && has_slot; then
  if ! configure; then
    log "replica already streaming on 127.0.0.1:$REPLICA_PORT"
    if [[ "${1:-}" == caught-up ]]; then caught_up "${2:-300}"; fi
    exit 0
  fi
  log "restarting the replica with the primary's settings"
  as_postgres "$BIN/pg_ctl" -D "$DIR" -l "$DIR/replica.log" -m fast -w -t 60 restart >/dev/null
elif [[ -f "$DIR/standby.signal" && -f "$DIR/postgresql.conf" ]] && has_slot; then
  log "starting the replica in $DIR"
  configure || true
  start || { copy && start; }
else
  copy
  start
fi

for _ in $(seq 1 60); do
  in_recovery && break
  sleep 0.5
done
in_recovery || { log "the replica on :$REPLICA_PORT did not come up in recovery; see $DIR/replica.log"; exit 1; }
log "replica streaming on 127.0.0.1:$REPLICA_PORT"
if [[ "${1:-}" == caught-up ]]; then caught_up "${2:-300}"; fi
