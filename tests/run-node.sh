#!/usr/bin/env bash
# Node's test runner on Node 20 takes no globs: list the files explicitly so none vanish silently.
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=("${@:-tests/plugin tests/demo tests/hardening tests/package tests/widget/build tests/bench tests/tooling}")
mapfile -t files < <(find ${dirs[@]} -name '*.test.ts' 2>/dev/null | sort)
if [ ${#files[@]} -eq 0 ]; then echo "run-node: no test files under ${dirs[*]}" >&2; exit 1; fi
# --test-force-exit: a file whose tests all ended is done, even if a client it used left a reconnect timer
# behind; without it the run would wait for that process forever instead of reporting. (The Redis Cluster
# store file once did: a cluster map read under way at close connected new clients after it. Closing now
# waits for that read.)
exec node --import tsx --import ./tests/helpers/browser-identity.ts --test --test-force-exit --test-concurrency="${TEST_CONCURRENCY:-2}" --test-timeout=120000 --test-reporter=spec "${files[@]}"
