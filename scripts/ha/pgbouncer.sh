#!/usr/bin/env bash
# PgBouncer in transaction mode in front of a PostgreSQL server, on loopback, for running the
# service (and its test suite) through it. Debian's pgbouncer, installed when missing.
#
#   scripts/ha/pgbouncer.sh up [HOST:PORT]   start it in front of HOST:PORT (default 127.0.0.1:5432)
#   scripts/ha/pgbouncer.sh down             stop it and remove its files
#   scripts/ha/pgbouncer.sh port             print the port it listens on (for a client's URL)
#
# PGBOUNCER_PORT (default 26432) is where it listens; PGBOUNCER_DIR (default /tmp/storefront-pgbouncer)
# holds its configuration, log and pid file. Every database name is passed through to the server,
# as user postgres without a password (the server must trust it on loopback, as this machine's does).
# Clients must use DB_PREPARED_STATEMENTS=false: a transaction pooler keeps no named statements.
set -euo pipefail
# shellcheck source=scripts/ha/apt-install.sh
. "$(dirname "$0")/apt-install.sh"
# shellcheck source=scripts/ha/ports.sh
. "$(dirname "$0")/ports.sh"

DIR=${PGBOUNCER_DIR:-/tmp/storefront-pgbouncer}
PORT=${PGBOUNCER_PORT:-26432}
RUN_AS=postgres

say() { echo "[pgbouncer $(date +%H:%M:%S)] $*"; }
die() { say "error: $*" >&2; exit 1; }
pid_alive() { [ -f "$DIR/pgbouncer.pid" ] && kill -0 "$(cat "$DIR/pgbouncer.pid" 2>/dev/null)" 2>/dev/null; }

install_package() {
  command -v pgbouncer >/dev/null && return 0
  say "installing pgbouncer (Debian package)"
  apt_install pgbouncer || die "could not install pgbouncer"
}

up() {
  local target=${1:-127.0.0.1:5432}
  install_package
  if pid_alive; then say "already running on 127.0.0.1:$PORT"; return 0; fi
  ports_free "$PORT" || die "set PGBOUNCER_PORT to a free port"
  rm -rf "$DIR"
  mkdir -p "$DIR"
  echo '"postgres" ""' >"$DIR/users.txt"
  cat >"$DIR/pgbouncer.ini" <<EOF
[databases]
* = host=${target%:*} port=${target##*:}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PORT
unix_socket_dir =
auth_type = trust
auth_file = $DIR/users.txt
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 30
max_db_connections = 40
server_idle_timeout = 10
logfile = $DIR/pgbouncer.log
pidfile = $DIR/pgbouncer.pid
EOF
  chown -R "$RUN_AS:" "$DIR"
  runuser -u "$RUN_AS" -- pgbouncer -d "$DIR/pgbouncer.ini"
  local deadline=$((SECONDS + 20))
  until psql -X -q -t -A -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -c 'select 1' >/dev/null 2>&1; do
    ((SECONDS < deadline)) || { tail -n 20 "$DIR/pgbouncer.log" >&2; die "pgbouncer did not answer on 127.0.0.1:$PORT"; }
    sleep 0.3
  done
  say "transaction mode on 127.0.0.1:$PORT in front of $target"
}

down() {
  if pid_alive; then
    kill -TERM "$(cat "$DIR/pgbouncer.pid")" 2>/dev/null || true
    local deadline=$((SECONDS + 10))
    while pid_alive && ((SECONDS < deadline)); do sleep 0.2; done
    pid_alive && kill -KILL "$(cat "$DIR/pgbouncer.pid")" 2>/dev/null || true
  fi
  rm -rf "$DIR"
  say "stopped"
}

case "${1:-}" in
  up) up "${2:-}" ;;
  down) down ;;
  port) echo "$PORT" ;;
  *) echo "usage: $0 up [HOST:PORT]|down|port" >&2; exit 2 ;;
esac
