# Sourced by the scripts in scripts/ha. Their default ports sit below 32768, out of Linux's default
# ephemeral range (32768-60999): a port in that range can be held at any moment by the local end of
# some client's connection, and a listener cannot bind it then (a CI run lost its PgBouncer stage so).
# Usage: ports_free PORT...  (returns non-zero, naming what holds each taken port)
ports_free() {
  local port held status=0
  for port in "$@"; do
    # Sockets left in TIME-WAIT do not stop a listener that sets SO_REUSEADDR, as these all do.
    held=$(ss -Htanp state all "( sport = :$port )" 2>/dev/null | grep -v '^TIME-WAIT' || true)
    if [ -n "$held" ]; then
      echo "port $port on this machine is taken:" >&2
      echo "$held" >&2
      status=1
    fi
  done
  return $status
}
