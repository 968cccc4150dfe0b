#!/usr/bin/env bash
# A PostgreSQL high-availability cluster on this one machine, for tests and benchmarks: etcd, three
# PostgreSQL 15 nodes under Patroni (synchronous_mode: true) and HAProxy routing to the primary and
# to the replicas, every port on 127.0.0.1. No containers: Debian's packages, installed when missing.
#
#   scripts/ha/cluster.sh up       start it (reuses a running one), create the database, print its URLs
#   scripts/ha/cluster.sh down     stop every process it started and remove its data
#   scripts/ha/cluster.sh status   the members (patronictl list) and whether HAProxy answers
#   scripts/ha/cluster.sh env      the URLs, as shell assignments
#   scripts/ha/cluster.sh check    exits 0 when it runs and routes, quietly
#
# HA_DIR (default /tmp/storefront-ha) holds data, configuration, logs and pid files; HA_PORT_BASE
# (default 25400) places the ports: etcd +1/+2, PostgreSQL +11..+13, Patroni REST +21..+23, HAProxy
# primary +32, replicas +33, statistics page +34. PostgreSQL refuses to run as root, so everything
# runs as the `postgres` user.
set -euo pipefail
# shellcheck source=scripts/ha/apt-install.sh
. "$(dirname "$0")/apt-install.sh"
# shellcheck source=scripts/ha/ports.sh
. "$(dirname "$0")/ports.sh"

HA_DIR=${HA_DIR:-/tmp/storefront-ha}
BASE=${HA_PORT_BASE:-25400}
PG_VERSION=15
PG_BIN=/usr/lib/postgresql/$PG_VERSION/bin
RUN_AS=postgres
DATABASE=${HA_DATABASE:-storefront}
ETCD_PORT=$((BASE + 1))
ETCD_PEER_PORT=$((BASE + 2))
PRIMARY_PORT=$((BASE + 32))
REPLICA_PORT=$((BASE + 33))
STATS_PORT=$((BASE + 34))
NODES=(1 2 3)
pg_port() { echo $((BASE + 10 + $1)); }
rest_port() { echo $((BASE + 20 + $1)); }

say() { echo "[ha $(date +%H:%M:%S)] $*"; }
die() { say "error: $*" >&2; exit 1; }
as_postgres() { runuser -u "$RUN_AS" -- "$@"; }

# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
  local seconds=$1 what=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      say "gave up after ${seconds}s waiting for $what; the logs in $HA_DIR/log:" >&2
      tail -n 30 "$HA_DIR"/log/*.log >&2 2>/dev/null || true
      return 1
    fi
    sleep 0.5
  done
}

install_packages() {
  local missing=()
  command -v patroni >/dev/null || missing+=(patroni)
  command -v etcd >/dev/null || missing+=(etcd-server)
  command -v etcdctl >/dev/null || missing+=(etcd-client)
  command -v haproxy >/dev/null || missing+=(haproxy)
  [ -x "$PG_BIN/postgres" ] || missing+=("postgresql-$PG_VERSION")
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]} (Debian packages)"
  apt_install "${missing[@]}" || die "could not install ${missing[*]}"
}

# Starts a program as the postgres user in its own session, its output in log/$1.log, its pid in run/$1.pid.
start_daemon() {
  local name=$1
  shift
  # The daemon writes its own pid (setsid may fork), then becomes the program.
  as_postgres setsid bash -c 'echo $$ >"$1" && cd "$2" && exec "${@:3}"' _ "$HA_DIR/run/$name.pid" "$HA_DIR" "$@" \
    </dev/null >>"$HA_DIR/log/$name.log" 2>&1 &
  wait_for 10 "$name to start" test -s "$HA_DIR/run/$name.pid"
}

write_patroni_config() {
  local n=$1 dir="$HA_DIR/node$1"
  cat >"$dir/patroni.yml" <<EOF
scope: storefront
name: node$n
restapi:
  listen: 127.0.0.1:$(rest_port "$n")
  connect_address: 127.0.0.1:$(rest_port "$n")
etcd3:
  hosts: 127.0.0.1:$ETCD_PORT
watchdog:
  mode: off
bootstrap:
  dcs:
    # A dead primary is noticed within a second or two and its lock expires after ttl seconds.
    ttl: 10
    loop_wait: 1
    retry_timeout: 4
    # Every commit waits for one standby's flush: a failover to it loses no answered order.
    synchronous_mode: true
    synchronous_node_count: 1
    # A primary whose PostgreSQL crashed hands over to the synchronous standby instead of restarting.
    primary_start_timeout: 0
    maximum_lag_on_failover: 1048576
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        max_connections: 300
        shared_buffers: 64MB
        wal_level: replica
        hot_standby: "on"
        hot_standby_feedback: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        wal_keep_size: 256MB
        max_wal_size: 512MB
        wal_receiver_status_interval: 1s
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
    - data-checksums
postgresql:
  listen: 127.0.0.1:$(pg_port "$n")
  connect_address: 127.0.0.1:$(pg_port "$n")
  data_dir: $dir/data
  bin_dir: $PG_BIN
  pgpass: $dir/pgpass
  authentication:
    superuser:
      username: postgres
      password: postgres
    replication:
      username: replicator
      password: replicator
    rewind:
      username: postgres
      password: postgres
  parameters:
    unix_socket_directories: $dir
  # Loopback only, and trusted: a test cluster on a developer's machine.
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
tags:
  nofailover: false
  noloadbalance: false
EOF
}

write_haproxy_config() {
  local servers_primary="" servers_replica="" n
  for n in "${NODES[@]}"; do
    servers_primary+="  server node$n 127.0.0.1:$(pg_port "$n") check port $(rest_port "$n")"$'\n'
    servers_replica+="  server node$n 127.0.0.1:$(pg_port "$n") check port $(rest_port "$n")"$'\n'
  done
  cat >"$HA_DIR/haproxy.cfg" <<EOF
global
  maxconn 2000
  pidfile $HA_DIR/run/haproxy.pid

defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 2s
  # A server marked down has its connections cut: clients reconnect to the node that now has the role.
  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions

listen stats
  mode http
  bind 127.0.0.1:$STATS_PORT
  stats enable
  stats uri /

# Writes: only the node whose Patroni answers /primary with 200.
listen primary
  bind 127.0.0.1:$PRIMARY_PORT
  option httpchk OPTIONS /primary
  http-check expect status 200
$servers_primary
# Catalog reads: any running replica (Patroni's /replica).
listen replicas
  bind 127.0.0.1:$REPLICA_PORT
  balance roundrobin
  option httpchk OPTIONS /replica
  http-check expect status 200
$servers_replica
EOF
}

http_code() { curl -s -o /dev/null -m 2 -w '%{http_code}' "$1" || true; }
leader_ready() { for n in "${NODES[@]}"; do [ "$(http_code "http://127.0.0.1:$(rest_port "$n")/primary")" = 200 ] && return 0; done; return 1; }
replicas_ready() {
  local count=0 n
  for n in "${NODES[@]}"; do [ "$(http_code "http://127.0.0.1:$(rest_port "$n")/replica")" = 200 ] && count=$((count + 1)); done
  [ $count -eq $((${#NODES[@]} - 1)) ]
}
sync_standby_ready() { for n in "${NODES[@]}"; do [ "$(http_code "http://127.0.0.1:$(rest_port "$n")/sync")" = 200 ] && return 0; done; return 1; }
query() { psql -X -q -t -A -h 127.0.0.1 -U postgres "$@"; }
port_answers() { query -p "$1" -d postgres -c 'select 1' | grep -q 1; }
haproxy_settled() {
  local csv
  csv=$(curl -s -m 2 "http://127.0.0.1:$STATS_PORT/;csv") || return 1
  [ "$(grep -c '^primary,node[0-9]*,.*,UP,' <<<"$csv")" = 1 ] && [ "$(grep -c '^replicas,node[0-9]*,.*,UP,' <<<"$csv")" = $((${#NODES[@]} - 1)) ]
}
pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1" 2>/dev/null)" 2>/dev/null; }

print_env() {
  echo "DATABASE_URL=postgres://postgres@127.0.0.1:$PRIMARY_PORT/$DATABASE"
  echo "DATABASE_READ_URL=postgres://postgres@127.0.0.1:$REPLICA_PORT/$DATABASE"
  echo "HA_DIR=$HA_DIR"
  echo "HA_PORT_BASE=$BASE"
}

is_up() { pid_alive "$HA_DIR/run/etcd.pid" && pid_alive "$HA_DIR/run/haproxy.pid" && leader_ready && replicas_ready; }

up() {
  install_packages
  if is_up; then
    say "already running in $HA_DIR"
  else
    [ -d "$HA_DIR" ] && { say "removing the remains of an earlier cluster in $HA_DIR"; down >/dev/null; }
    local ports=("$ETCD_PORT" "$ETCD_PEER_PORT" "$PRIMARY_PORT" "$REPLICA_PORT" "$STATS_PORT") n
    for n in "${NODES[@]}"; do ports+=("$(pg_port "$n")" "$(rest_port "$n")"); done
    ports_free "${ports[@]}" || die "set HA_PORT_BASE to place the ports elsewhere"
    say "starting in $HA_DIR (ports $BASE..$((BASE + 34)))"
    mkdir -p "$HA_DIR"/{log,run,etcd}
    for n in "${NODES[@]}"; do mkdir -p "$HA_DIR/node$n"; write_patroni_config "$n"; done
    write_haproxy_config
    chown -R "$RUN_AS:" "$HA_DIR"
    chmod 700 "$HA_DIR"

    start_daemon etcd etcd --name storefront-ha --data-dir "$HA_DIR/etcd" \
      --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
      --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
      --initial-cluster "storefront-ha=http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state new
    wait_for 30 "etcd" etcdctl --endpoints "127.0.0.1:$ETCD_PORT" endpoint health

    # The first node bootstraps (initdb); the others then copy it with pg_basebackup.
    start_daemon patroni1 patroni "$HA_DIR/node1/patroni.yml"
    wait_for 90 "the first node to become primary" leader_ready
    for n in "${NODES[@]:1}"; do start_daemon "patroni$n" patroni "$HA_DIR/node$n/patroni.yml"; done
    wait_for 120 "two streaming replicas" replicas_ready
    wait_for 60 "a synchronous standby" sync_standby_ready

    as_postgres haproxy -D -f "$HA_DIR/haproxy.cfg" >>"$HA_DIR/log/haproxy.log" 2>&1
    # HAProxy takes every server for up until its checks say otherwise: wait for them to settle.
    wait_for 30 "HAProxy's checks: one primary, two replicas" haproxy_settled
    wait_for 30 "HAProxy's primary port" port_answers "$PRIMARY_PORT"
    wait_for 30 "HAProxy's replica port" port_answers "$REPLICA_PORT"
  fi
  if [ "$(query -p "$PRIMARY_PORT" -d postgres -c "select count(*) from pg_database where datname = '$DATABASE'")" = 0 ]; then
    query -p "$PRIMARY_PORT" -d postgres -c "create database \"$DATABASE\""
  fi
  status
  print_env
}

# Sends $1 to the pid in file $2, if it is alive.
signal_pidfile() { pid_alive "$2" && kill "-$1" "$(cat "$2")" 2>/dev/null || true; }

down() {
  [ -d "$HA_DIR" ] || { say "nothing to stop in $HA_DIR"; return 0; }
  say "stopping the cluster in $HA_DIR"
  signal_pidfile TERM "$HA_DIR/run/haproxy.pid"
  local n
  # Patroni stops its PostgreSQL on SIGTERM.
  for n in "${NODES[@]}"; do signal_pidfile TERM "$HA_DIR/run/patroni$n.pid"; done
  local deadline=$((SECONDS + 30))
  for n in "${NODES[@]}"; do
    while pid_alive "$HA_DIR/run/patroni$n.pid" && ((SECONDS < deadline)); do sleep 0.5; done
    signal_pidfile KILL "$HA_DIR/run/patroni$n.pid"
  done
  # A PostgreSQL left behind (its Patroni was killed): stop it by the pid it wrote.
  for n in "${NODES[@]}"; do
    local postmaster="$HA_DIR/node$n/data/postmaster.pid"
    if [ -f "$postmaster" ]; then
      local pid
      pid=$(head -n 1 "$postmaster")
      if kill -0 "$pid" 2>/dev/null && grep -q "$HA_DIR/node$n" "/proc/$pid/cmdline" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
    fi
  done
  signal_pidfile TERM "$HA_DIR/run/etcd.pid"
  sleep 1
  signal_pidfile KILL "$HA_DIR/run/etcd.pid"
  signal_pidfile KILL "$HA_DIR/run/haproxy.pid"
  # Whatever is left of this cluster (a pid file lost in a crash) names its directory on its command line.
  local pid
  for pid in $(pgrep -f -- "$HA_DIR/" || true); do
    [ "$pid" != $$ ] && grep -qa -- "$HA_DIR/" "/proc/$pid/cmdline" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$HA_DIR"
  say "stopped and removed"
}

status() {
  if [ ! -f "$HA_DIR/node1/patroni.yml" ]; then say "not running (no $HA_DIR)"; return 1; fi
  as_postgres patronictl -c "$HA_DIR/node1/patroni.yml" list || true
  local port
  for port in "$PRIMARY_PORT" "$REPLICA_PORT"; do
    if port_answers "$port"; then say "HAProxy 127.0.0.1:$port answers (in recovery: $(query -p "$port" -d postgres -c 'select pg_is_in_recovery()'))"; else say "HAProxy 127.0.0.1:$port does not answer"; fi
  done
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  env) print_env ;;
  check) is_up ;;
  install) install_packages ;;
  *) echo "usage: $0 up|down|status|env|check|install" >&2; exit 2 ;;
esac
