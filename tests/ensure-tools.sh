#!/usr/bin/env bash
# Finds what the tests need outside npm (Chromium, redis-server and redis-cli, PostgreSQL's server binaries) and installs it with
# apt-get when it can. Prints what is missing and exits 1 when it cannot, so a run never silently skips a backend or a
# browser. PostgreSQL refuses to run as root: a root run starts it as the `postgres` user the Debian package creates
# (tests/helpers/postgres-server.ts).
set -euo pipefail
need=()
chromium_bin="${CHROMIUM_PATH:-}"
if [ -z "$chromium_bin" ]; then
  for c in /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome; do
    [ -x "$c" ] && chromium_bin="$c" && break
  done
fi
[ -n "$chromium_bin" ] || need+=(chromium)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
# redis-cli joins the test Redis Cluster's nodes (tests/helpers/redis-cluster.ts).
command -v redis-cli >/dev/null 2>&1 || need+=(redis-tools)
have_postgres() {
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || command -v initdb >/dev/null 2>&1
}
have_postgres || need+=(postgresql)
# As root the server runs as `postgres`; without that user (a hand-built PostgreSQL) the package brings one.
if have_postgres && [ "$(id -u)" = 0 ] && ! id -u postgres >/dev/null 2>&1; then need+=(postgresql); fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-tools: installing ${need[*]} with apt-get" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
  else
    echo "ensure-tools: missing ${need[*]}. Install them (Debian: sudo apt-get install -y ${need[*]})," >&2
    echo "or set CHROMIUM_PATH to a Chromium binary. The browser, Redis and PostgreSQL tests cannot run without them." >&2
    exit 1
  fi
fi
