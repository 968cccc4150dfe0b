# Sourced by the scripts in scripts/ha: installs Debian packages without starting their services.
# Usage: apt_install PACKAGE...  (as root; returns non-zero, with the tail of apt's log, on failure)
apt_install() {
  if [ "$(id -u)" != 0 ]; then
    echo "missing $*: run as root, or install them with apt-get" >&2
    return 1
  fi
  # The packages' own services must not start (they would take ports, with the packages'
  # configuration): only these scripts start what they need, with their own.
  local guard="" status=0 log=/tmp/storefront-ha-apt.log
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    guard=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' >"$guard"
    chmod +x "$guard"
  fi
  { timeout 300 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends "$@"; } >"$log" 2>&1 || status=$?
  [ -n "$guard" ] && rm -f "$guard"
  if [ $status -ne 0 ]; then
    tail -n 20 "$log" >&2
    echo "apt-get install $* failed" >&2
  fi
  return $status
}
