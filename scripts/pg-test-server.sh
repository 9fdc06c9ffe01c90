#!/usr/bin/env bash
# Starts or stops a throwaway PostgreSQL server for the store tests (the CTest
# fixture in src/store/CMakeLists.txt calls it; you may too).
#
#   scripts/pg-test-server.sh start DIR   fresh cluster in DIR/data, socket in DIR
#   scripts/pg-test-server.sh stop DIR    stop it and delete DIR
#
# The server listens only on a Unix socket in DIR (no TCP port, so nothing can clash
# and nothing is reachable from outside), trusts local connections (no password),
# and its superuser is "postgres". URL: postgresql://postgres@/postgres?host=DIR
# PostgreSQL refuses to run as root, so as root the server runs as the "postgres"
# system user (created by Debian's postgresql package) via runuser.
set -euo pipefail

action=${1:-}
dir=${2:-}
if [[ -z "$action" || -z "$dir" ]]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 64
fi

find_bin() {
  if [[ -n "${PG_BIN:-}" && -x "${PG_BIN}/initdb" ]]; then echo "$PG_BIN"; return; fi
  local d
  for d in /usr/lib/postgresql/*/bin; do
    if [[ -x "$d/initdb" ]]; then echo "$d"; return; fi
  done
  if command -v initdb >/dev/null; then dirname "$(command -v initdb)"; return; fi
  echo "pg-test-server: PostgreSQL server binaries (initdb, pg_ctl) not found;" \
       "install them with scripts/install-deps.sh (Debian package postgresql)" >&2
  exit 1
}

as_owner() {
  if [[ $(id -u) -eq 0 ]]; then
    if ! id postgres >/dev/null 2>&1; then
      echo "pg-test-server: running as root and there is no 'postgres' user to run the" \
           "server as (PostgreSQL refuses root); install Debian's postgresql package" >&2
      exit 1
    fi
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

stop_server() {
  if [[ -f "$dir/data/postmaster.pid" ]]; then
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
  fi
}

bin=$(find_bin)
case "$action" in
  start)
    # A server left by an interrupted run of the same build: stop it, start afresh.
    stop_server
    rm -rf "$dir"
    mkdir -p "$dir"
    if [[ $(id -u) -eq 0 ]]; then chown postgres: "$dir"; fi
    chmod 700 "$dir"
    if ! as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 \
         --no-sync >"$dir/initdb.log" 2>&1; then
      echo "pg-test-server: initdb failed:" >&2
      cat "$dir/initdb.log" >&2
      exit 1
    fi
    # fsync off: a test cluster is thrown away, and CI disks are slow.
    if ! as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
         -o "-k $dir -c listen_addresses='' -c fsync=off -c max_connections=50" start \
         >"$dir/pg_ctl.log" 2>&1; then
      echo "pg-test-server: the server did not start:" >&2
      cat "$dir/pg_ctl.log" "$dir/server.log" >&2 || true
      exit 1
    fi
    echo "pg-test-server: PostgreSQL ready at postgresql://postgres@/postgres?host=$dir"
    ;;
  stop)
    stop_server
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start|stop DIR" >&2
    exit 64
    ;;
esac
