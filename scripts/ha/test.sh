#!/usr/bin/env bash
# npm run test:ha: the high-availability tests (test/ha) on the local cluster of cluster.sh. Starts
# the cluster when none runs and removes it afterwards; one that was already running is left as is.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! scripts/ha/cluster.sh check; then
  trap 'scripts/ha/cluster.sh down' EXIT
  scripts/ha/cluster.sh up
fi
HA_REQUIRED=1 node --import tsx --test --test-concurrency=1 test/ha/*.test.ts
