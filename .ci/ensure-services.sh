#!/usr/bin/env bash
# Make sure the services the Loci test-suite needs are up on this machine:
#   - PostgreSQL on 127.0.0.1:5432 (trust auth), with a `test` database
#   - the pgvector extension available in that PostgreSQL
#   - Redis on 127.0.0.1:6379
#
# Idempotent and quick when everything is already in place. Safe to either run
# (`bash .ci/ensure-services.sh`) or source from .ci/run: when sourced it
# re-runs itself in a child bash so its shell options and traps don't leak.
#
# pgvector: Debian bookworm ships no pgvector build for PostgreSQL 15, so when
# missing we fetch Debian trixie's *source* package through a private apt
# sources list (the system apt configuration is never modified), then build
# and install it against the local server with PGXS.

if [[ "${BASH_SOURCE[0]}" != "${0}" ]]; then
  bash "${BASH_SOURCE[0]}" "$@"
  return $?
fi

set -euo pipefail

PG_HOST=127.0.0.1
PG_PORT=5432
PG_USER=postgres
TEST_DB=test
REDIS_HOST=127.0.0.1
REDIS_PORT=6379
PGVECTOR_SUITE=trixie

export DEBIAN_FRONTEND=noninteractive

log() { printf '[ensure-services] %s\n' "$*"; }
die() { printf '[ensure-services] ERROR: %s\n' "$*" >&2; exit 1; }

WORK_DIR=""
cleanup() { [[ -n "$WORK_DIR" && -d "$WORK_DIR" ]] && rm -rf "$WORK_DIR"; return 0; }
trap cleanup EXIT

# Run a noisy command with its output captured; show the tail only on failure.
quiet() {
  local out rc=0
  out="$(mktemp)"
  "$@" >"$out" 2>&1 || rc=$?
  if [[ $rc -ne 0 ]]; then
    printf '[ensure-services] command failed (exit %d): %s\n' "$rc" "$*" >&2
    tail -n 40 "$out" >&2
  fi
  rm -f "$out"
  return "$rc"
}

pg_major() {
  local major
  [[ -d /etc/postgresql ]] || die "/etc/postgresql not found: is PostgreSQL installed?"
  major="$(ls /etc/postgresql | grep -E '^[0-9]+$' | sort -n | tail -n 1 || true)"
  [[ -n "$major" ]] || die "no PostgreSQL cluster config found under /etc/postgresql"
  printf '%s\n' "$major"
}

psql_q() {
  # psql_q <db> <sql>  -> unaligned, tuples-only output
  psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d "$1" -v ON_ERROR_STOP=1 -X -tAc "$2"
}

# ---------------------------------------------------------------------------
# 1. PostgreSQL
# ---------------------------------------------------------------------------
ensure_postgres() {
  if pg_isready -q -h "$PG_HOST" -p "$PG_PORT"; then
    log "postgresql: up on $PG_HOST:$PG_PORT"
    return 0
  fi
  local major
  major="$(pg_major)"
  log "postgresql: not ready, starting cluster $major/main"
  pg_ctlcluster --skip-systemctl-redirect "$major" main start \
    || log "postgresql: pg_ctlcluster start returned non-zero (may already be starting), waiting"
  local i
  for ((i = 0; i < 60; i++)); do
    if pg_isready -q -h "$PG_HOST" -p "$PG_PORT"; then
      log "postgresql: up on $PG_HOST:$PG_PORT"
      return 0
    fi
    sleep 0.5
  done
  die "postgresql did not become ready on $PG_HOST:$PG_PORT within 30s"
}

ensure_test_db() {
  if [[ "$(psql_q postgres "select 1 from pg_database where datname='$TEST_DB'")" == "1" ]]; then
    log "postgresql: database '$TEST_DB' exists"
  else
    log "postgresql: creating database '$TEST_DB'"
    psql_q postgres "create database \"$TEST_DB\"" >/dev/null
  fi
}

# ---------------------------------------------------------------------------
# 2. Redis
# ---------------------------------------------------------------------------
redis_ok() {
  [[ "$(redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null || true)" == "PONG" ]]
}

ensure_redis() {
  if redis_ok; then
    log "redis: up on $REDIS_HOST:$REDIS_PORT"
    return 0
  fi
  command -v redis-server >/dev/null || die "redis-server not found: is Redis installed?"
  log "redis: not answering, starting redis-server"
  redis-server --daemonize yes --bind "$REDIS_HOST" --port "$REDIS_PORT" --save "" --appendonly no >/dev/null
  local i
  for ((i = 0; i < 40; i++)); do
    if redis_ok; then
      log "redis: up on $REDIS_HOST:$REDIS_PORT"
      return 0
    fi
    sleep 0.25
  done
  die "redis did not answer on $REDIS_HOST:$REDIS_PORT within 10s"
}

# ---------------------------------------------------------------------------
# 3. pgvector
# ---------------------------------------------------------------------------
vector_available() {
  [[ "$(psql_q postgres "select 1 from pg_available_extensions where name='vector'")" == "1" ]]
}

# Print the Debian archive URI used by the system's apt sources (the entry that
# serves the main archive, not the security one), e.g. http://<mirror>/debian.
debian_mirror_uri() {
  local uri=""
  # deb822 style (*.sources): take URIs of a stanza whose Suites has bookworm/stable
  # and which is not the security archive.
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -r "$f" ]] || continue
    uri="$(awk '
      function flush() {
        if (uris != "" && suites ~ /(^|[[:space:]])(bookworm|stable)([[:space:]]|$)/ && types ~ /deb/) {
          n = split(uris, u, /[[:space:]]+/)
          for (i = 1; i <= n; i++) if (u[i] != "" && u[i] !~ /security/) { print u[i]; exit }
        }
        uris = ""; suites = ""; types = ""
      }
      /^[[:space:]]*$/ { flush(); next }
      /^[[:space:]]*#/ { next }
      tolower($1) == "uris:"   { sub(/^[^:]*:[[:space:]]*/, ""); uris = $0; next }
      tolower($1) == "suites:" { sub(/^[^:]*:[[:space:]]*/, ""); suites = $0; next }
      tolower($1) == "types:"  { sub(/^[^:]*:[[:space:]]*/, ""); types = $0; next }
      END { flush() }
    ' "$f" | head -n 1)"
    [[ -n "$uri" ]] && break
  done
  # one-line style (sources.list and *.list)
  if [[ -z "$uri" ]]; then
    local lists=()
    [[ -r /etc/apt/sources.list ]] && lists+=(/etc/apt/sources.list)
    for f in /etc/apt/sources.list.d/*.list; do [[ -r "$f" ]] && lists+=("$f"); done
    if ((${#lists[@]})); then
      uri="$(cat "${lists[@]}" | awk '
        /^[[:space:]]*deb(-src)?[[:space:]]/ {
          i = 2
          if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
          if ($(i) !~ /security/ && $(i+1) ~ /^(bookworm|stable)$/) { print $(i); exit }
        }')"
    fi
  fi
  uri="${uri%/}"
  if [[ -z "$uri" ]]; then
    die "pgvector: could not read a Debian mirror from the apt sources"
  fi
  printf '%s\n' "$uri"
}

BOOKWORM_UPDATED=0
ensure_build_deps() {
  local major="$1" missing=() p
  for p in "postgresql-server-dev-$major" build-essential dpkg-dev xz-utils; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$p")
    fi
  done
  if ((${#missing[@]} == 0)); then
    log "pgvector: build dependencies already installed"
    return 0
  fi
  log "pgvector: installing build dependencies: ${missing[*]}"
  if [[ $BOOKWORM_UPDATED -eq 0 ]]; then
    quiet apt-get "${APT_WAIT_FOR_LOCK[@]}" update -q
    BOOKWORM_UPDATED=1
  fi
  quiet apt-get "${APT_WAIT_FOR_LOCK[@]}" install -y -q --no-install-recommends "${missing[@]}"
}

# Another apt (a browser being installed beside this, unattended upgrades) holds dpkg's lock for
# a while; wait for it rather than fail the whole run.
APT_WAIT_FOR_LOCK=(-o DPkg::Lock::Timeout=600)

install_pgvector() {
  local major pg_config mirror
  major="$(pg_major)"
  pg_config="/usr/lib/postgresql/$major/bin/pg_config"

  ensure_build_deps "$major"
  [[ -x "$pg_config" ]] || die "pg_config not found at $pg_config"

  mirror="$(debian_mirror_uri)"
  WORK_DIR="$(mktemp -d /tmp/ensure-services.XXXXXX)"
  local src_list="$WORK_DIR/sources.list" lists_dir="$WORK_DIR/lists"
  mkdir -p "$lists_dir/partial" "$WORK_DIR/src"
  # The trixie archive keys ship in bookworm's debian-archive-keyring, so the
  # Release signature verifies normally; no trusted=yes needed.
  printf 'deb-src %s %s main\n' "$mirror" "$PGVECTOR_SUITE" >"$src_list"

  local apt_opts=(
    -o "Dir::Etc::sourcelist=$src_list"
    -o "Dir::Etc::sourceparts=-"
    -o "Dir::State::Lists=$lists_dir"
    -o "Dir::Cache::pkgcache="
    -o "Dir::Cache::srcpkgcache="
    -o "APT::Get::List-Cleanup=0"
    # private dirs are root-owned temp dirs: skip the _apt sandbox (and its warning)
    -o "APT::Sandbox::User=root"
  )

  log "pgvector: fetching $PGVECTOR_SUITE source index (private apt lists)"
  quiet apt-get "${apt_opts[@]}" update -q
  log "pgvector: downloading source package"
  (cd "$WORK_DIR/src" && quiet apt-get "${apt_opts[@]}" source -q pgvector)

  local srcdir
  srcdir="$(find "$WORK_DIR/src" -mindepth 1 -maxdepth 1 -type d -name 'pgvector-*' | head -n 1)"
  [[ -n "$srcdir" && -f "$srcdir/Makefile" ]] || die "pgvector source tree not found after apt-get source"
  log "pgvector: building $(basename "$srcdir") for PostgreSQL $major"
  # OPTFLAGS= : don't build with -march=native (same choice as Debian's package).
  quiet make -C "$srcdir" PG_CONFIG="$pg_config" OPTFLAGS= -j"$(nproc)"
  quiet make -C "$srcdir" PG_CONFIG="$pg_config" OPTFLAGS= install
}

ensure_pgvector() {
  if vector_available; then
    log "pgvector: available"
    return 0
  fi
  log "pgvector: not available, installing from Debian $PGVECTOR_SUITE source"
  local t0=$SECONDS
  install_pgvector
  vector_available || die "pgvector was built and installed but 'vector' is still not in pg_available_extensions"
  log "pgvector: installed ($((SECONDS - t0))s)"
}

main() {
  ensure_postgres
  ensure_redis
  ensure_test_db
  ensure_pgvector
  log "all services ready"
}

main "$@"
