#!/usr/bin/env bash
# npm run test:ha: the high-availability tests (test/ha) on the local cluster of cluster.sh. Starts
# the cluster when none runs and removes it afterwards; one that was already running is left as is.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! scripts/ha/cluster.sh check; then
  trap 'scripts/ha/cluster.sh down' EXIT
  scripts/ha/cluster.sh up
fi
if ! HA_REQUIRED=1 node --import tsx --test --test-concurrency=1 test/ha/*.test.ts; then
  # The cluster's logs go with it: keep what each Patroni decided (why it failed over, or restarted
  # a crashed primary instead) in this run's output.
  ha_dir=$(scripts/ha/cluster.sh env | sed -n 's/^HA_DIR=//p')
  for log in "$ha_dir"/log/patroni*.log; do
    echo "== $log: its last decisions"
    { grep -E ' (INFO|WARNING|ERROR): ' "$log" |
        grep -vE 'no action|Lock owner|establishing a new patroni|Retry got|Failed to determine|get_postgresql_status|Error communicating|last_operation' |
        tail -n 60; } || true
  done
  exit 1
fi
