#!/usr/bin/env bash
# End-to-end acceptance in Debian's Chromium through playwright-core; evidence goes to .evidence/e2e/.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find tests/e2e -name '*.test.ts' | sort)
if [ ${#files[@]} -eq 0 ]; then echo "run-e2e: no test files" >&2; exit 1; fi
# The cases drive the built demo page: rebuild it when a source is newer than the build (as demo/run.sh does).
if [ "${E2E_STAND_IN:-}" != "1" ]; then
  if [ ! -f demo/dist/index.html ] || [ -n "$(find demo/page widget demo/vite.config.ts -newer demo/dist/index.html -type f 2>/dev/null | head -1)" ]; then
    echo "run-e2e: building the demo page (vite, demo/vite.config.ts)" >&2
    npx vite build -c demo/vite.config.ts >&2
  fi
fi
# The Next.js app installs the package as a user has it (its dist/): build it when a source is newer.
if [ ! -f dist/widget/react.js ] || [ ! -f dist/plugin/index.js ] || [ -n "$(find plugin widget package.json -newer dist/widget/react.js -type f -name '*.ts' -o -newer dist/widget/react.js -name package.json 2>/dev/null | head -1)" ]; then
  echo "run-e2e: building the package (npm run build) for the Next.js app" >&2
  npm run --silent build >&2
fi
# Two files at a time: each is a process of its own with its own servers, ports and browser, and most of a
# case's time is waiting on a page or a server, so two share two cores (one at a time on a quiet machine took
# 356 s; two at a time beside two busy loops 387 s). E2E_CONCURRENCY=1 runs them one after another.
exec node --import tsx --import ./tests/helpers/browser-identity.ts --test --test-concurrency="${E2E_CONCURRENCY:-2}" --test-timeout=180000 --test-reporter=spec "${files[@]}"
