#!/usr/bin/env bash
# Installs the project's npm dependencies when node_modules is missing or was installed from another lock file, so
# `npm test`, `npm run demo` and `npm run bench` each work on a fresh clone. The `node` dev dependency puts
# Node.js 24 into node_modules/.bin, which npm scripts put first on PATH: the project runs on Node 24
# whatever node the machine has. Prints what is wrong and exits 1 when it cannot install.
set -euo pipefail
cd "$(dirname "$0")/.."
want=24
# Seconds between the progress lines of a long install.
tick=${ENSURE_DEPS_TICK_SECONDS:-20}
# The lock file's hash at the last good install: a checkout or an edit that changes the lock file
# reinstalls, one that only touches it (a git operation, an editor) does not.
stamp=node_modules/.ask-user-kit-lock
want_lock=$(cksum < package-lock.json)
if [ ! -x node_modules/.bin/node ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want_lock" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "ensure-deps: npm is missing. Install Node.js with npm (any version ≥ 18); the project brings its own Node $want." >&2
    exit 1
  fi
  packages=$(grep -c '^    "node_modules/' package-lock.json || true)
  echo "ensure-deps: installing dependencies with npm ci: about ${packages} packages, Node.js $want among them (usually 1-3 minutes;" >&2
  echo "ensure-deps: npm prints little until it is done, so a line follows every ${tick}s while it runs)" >&2
  # npm ci in the background, a line every $tick seconds: a fresh clone's first command never looks stuck.
  npm ci --no-audit --no-fund >&2 &
  installer=$!
  started=$SECONDS
  while kill -0 "$installer" 2>/dev/null; do
    for _ in $(seq "$tick"); do kill -0 "$installer" 2>/dev/null || break; sleep 1; done
    kill -0 "$installer" 2>/dev/null && echo "ensure-deps: npm ci still installing ($((SECONDS - started)) s)" >&2
  done
  if ! wait "$installer"; then
    echo "ensure-deps: npm ci failed (see above). It needs the npm registry (no dependency builds anything native: the SQLite store is Node's own node:sqlite)." >&2
    exit 1
  fi
  echo "$want_lock" > "$stamp"
  echo "ensure-deps: dependencies installed in $((SECONDS - started)) s" >&2
fi
have=$(node_modules/.bin/node --version 2>/dev/null || true)
case "$have" in
  v$want.*) ;;
  *) echo "ensure-deps: node_modules/.bin/node is '${have:-missing}', not Node $want. Remove node_modules and run again." >&2; exit 1 ;;
esac
