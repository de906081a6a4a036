#!/usr/bin/env bash
# Installs the project's npm dependencies when node_modules is missing or was installed from another lock file, so
# `npm test`, `npm run demo` and `npm run bench` each work on a fresh clone. The `node` dev dependency puts
# Node.js 24 into node_modules/.bin, which npm scripts put first on PATH: the project runs on Node 24
# whatever node the machine has. Prints what is wrong and exits 1 when it cannot install.
set -euo pipefail
cd "$(dirname "$0")/.."
want=24
# The lock file's hash at the last good install: a checkout or an edit that changes the lock file
# reinstalls, one that only touches it (a git operation, an editor) does not.
stamp=node_modules/.ask-user-kit-lock
want_lock=$(cksum < package-lock.json)
if [ ! -x node_modules/.bin/node ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want_lock" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "ensure-deps: npm is missing. Install Node.js with npm (any version ≥ 18); the project brings its own Node $want." >&2
    exit 1
  fi
  echo "ensure-deps: installing dependencies (npm ci)" >&2
  if ! npm ci --no-audit --no-fund >&2; then
    echo "ensure-deps: npm ci failed (see above). It needs the npm registry (no dependency builds anything native: the SQLite store is Node's own node:sqlite)." >&2
    exit 1
  fi
  echo "$want_lock" > "$stamp"
fi
have=$(node_modules/.bin/node --version 2>/dev/null || true)
case "$have" in
  v$want.*) ;;
  *) echo "ensure-deps: node_modules/.bin/node is '${have:-missing}', not Node $want. Remove node_modules and run again." >&2; exit 1 ;;
esac
