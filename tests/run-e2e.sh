#!/usr/bin/env bash
# End-to-end acceptance in Debian's Chromium through playwright-core; evidence goes to .evidence/.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find tests/e2e -name '*.test.ts' | sort)
if [ ${#files[@]} -eq 0 ]; then echo "run-e2e: no test files" >&2; exit 1; fi
exec node --import tsx --test --test-concurrency=1 --test-timeout=180000 --test-reporter=spec "${files[@]}"
