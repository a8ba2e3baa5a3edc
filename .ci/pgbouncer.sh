#!/usr/bin/env bash
# PgBouncer (Debian's package) in transaction pooling mode in front of the CI cluster, on
# 127.0.0.1:6432, for the e2e files .ci/run runs through it (issue 38.3). Its own configuration
# and process, run as the postgres user; the package's service, if any, is left alone.
#
# Every database name is forwarded (`*`), so each test file's fresh database is reachable through
# it. The pools are small and close idle server connections soon: test files come and go by the
# hundred on a cluster of 100 connections. connect_query gives each server session the setting
# Loci otherwise sends as a startup option, which PgBouncer drops (ignore_startup_parameters).
#
# Idempotent: the configuration is rewritten, a running PgBouncer reloads it, one not running is
# started.
set -euo pipefail

PORT="${LOCI_PGBOUNCER_PORT:-6432}"
DIR="${LOCI_PGBOUNCER_DIR:-/var/lib/postgresql/loci-pgbouncer}"
log() { printf '[pgbouncer] %s\n' "$*"; }

command -v pgbouncer >/dev/null || (apt-get -o DPkg::Lock::Timeout=600 update -qq && apt-get -o DPkg::Lock::Timeout=600 install -y -qq pgbouncer >/dev/null)

install -d -o postgres -g postgres -m 700 "$DIR"
cat >"$DIR/pgbouncer.ini" <<EOF
[databases]
* = host=127.0.0.1 port=5432 connect_query='SET hnsw.iterative_scan = relaxed_order'

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PORT
unix_socket_dir =
auth_type = trust
auth_file = $DIR/userlist.txt
admin_users = postgres
stats_users = postgres
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 4
server_idle_timeout = 10
autodb_idle_timeout = 30
ignore_startup_parameters = extra_float_digits,options
pidfile = $DIR/pgbouncer.pid
logfile = $DIR/pgbouncer.log
EOF
printf '"postgres" ""\n' >"$DIR/userlist.txt"
chown postgres:postgres "$DIR/pgbouncer.ini" "$DIR/userlist.txt"

if [[ -f "$DIR/pgbouncer.pid" ]] && kill -0 "$(cat "$DIR/pgbouncer.pid")" 2>/dev/null; then
  kill -HUP "$(cat "$DIR/pgbouncer.pid")"
  log "PgBouncer already running on 127.0.0.1:$PORT; configuration reloaded"
  exit 0
fi
runuser -u postgres -- pgbouncer -d "$DIR/pgbouncer.ini"
for _ in $(seq 1 40); do
  psql -h 127.0.0.1 -p "$PORT" -U postgres -Atc 'SELECT 1' postgres >/dev/null 2>&1 && { log "PgBouncer (transaction pooling) on 127.0.0.1:$PORT"; exit 0; }
  sleep 0.25
done
log "PgBouncer did not answer on :$PORT; see $DIR/pgbouncer.log"
exit 1
