#!/usr/bin/env bash
# A streaming replica of the CI cluster (127.0.0.1:5432) on 127.0.0.1:5433, for the read-replica
# e2e tests (issue 38): pg_basebackup -R of the running cluster into a directory of its own,
# started with the cluster's own binaries as the postgres user. Nothing of the primary changes
# but one pg_hba line that lets 127.0.0.1 open replication connections (trust, as the rest).
#
# Idempotent and quick: a replica already running in recovery is left as it is; one that is
# stopped is started; one that cannot start or catch up (its WAL recycled on the primary, a
# half-copied directory) is copied again. The copy of a CI cluster takes seconds.
# `replica.sh stop` stops it (fast shutdown), as the e2e test of a replica stopped mid-traffic does.
set -euo pipefail

PRIMARY_PORT=5432
REPLICA_PORT="${LOCI_REPLICA_PORT:-5433}"
PG_MAJOR="$(ls /etc/postgresql | grep -E '^[0-9]+$' | sort -n | tail -n 1)"
BIN="/usr/lib/postgresql/$PG_MAJOR/bin"
HBA="/etc/postgresql/$PG_MAJOR/main/pg_hba.conf"
DIR="${LOCI_REPLICA_DIR:-/var/lib/postgresql/$PG_MAJOR/loci-replica}"

log() { printf '[replica] %s\n' "$*"; }
as_postgres() { runuser -u postgres -- "$@"; }
in_recovery() { [[ "$(psql -h 127.0.0.1 -p "$REPLICA_PORT" -U postgres -Atc 'SELECT pg_is_in_recovery()' postgres 2>/dev/null)" == t ]]; }

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

copy() {
  log "copying the cluster on :$PRIMARY_PORT into $DIR (pg_basebackup -R)"
  as_postgres "$BIN/pg_ctl" -D "$DIR" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$DIR"
  install -d -o postgres -g postgres -m 700 "$DIR"
  as_postgres "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$DIR" -R -X stream --checkpoint=fast
  configure || true
}

if in_recovery; then
  if ! configure; then
    log "replica already streaming on 127.0.0.1:$REPLICA_PORT"
    exit 0
  fi
  log "restarting the replica with the primary's settings"
  as_postgres "$BIN/pg_ctl" -D "$DIR" -l "$DIR/replica.log" -m fast -w -t 60 restart >/dev/null
elif [[ -f "$DIR/standby.signal" && -f "$DIR/postgresql.conf" ]]; then
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
