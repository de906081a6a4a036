#!/usr/bin/env bash
# `npm run bench`: every benchmark in turn, then one summary table (bench/summary.ts). Benchmarks are not
# tests: nothing here fails on a slow figure. Each step is bounded in time; a step that fails or times out
# is reported in the summary and makes the script exit non-zero after the table is printed.
set -uo pipefail
cd "$(dirname "$0")/.."
bash tests/ensure-deps.sh || exit 1
export PATH="$PWD/node_modules/.bin:$PATH"

RESULTS=bench/results
BUILD="$RESULTS/build"
mkdir -p "$RESULTS"
rm -f "$RESULTS"/part-*.json "$RESULTS/latest.json"

# The plugin is measured as tsc emits it, run by plain node: no TypeScript loader on the hot path.
echo "== compiling plugin, widget reader and benchmarks to $BUILD"
if ! npx tsc -p bench/tsconfig.json; then
  echo "bench: tsc failed; nothing was measured" >&2
  exit 1
fi
# Node must read the emitted .js files as ES modules.
echo '{ "type": "module" }' > "$BUILD/package.json"

failed=()
step() {
  local name=$1 limit=$2
  shift 2
  echo
  echo "== $name"
  if ! timeout --kill-after=5 "$limit" "$@"; then
    echo "bench: $name failed or exceeded ${limit}s" >&2
    failed+=("$name")
  fi
}

step interception 60 node "$BUILD/bench/interception.js"
step http-routes 300 node "$BUILD/bench/http-routes.js"
step pending-scale 90 node "$BUILD/bench/pending-scale.js"
step bundle 60 node "$BUILD/bench/bundle.js"
# Builds the Markdown chunk with vite and times it in Chromium, so it runs from the sources like bundle-size.ts.
step markdown 120 node --import tsx bench/markdown-render.ts
# About 4 minutes at the default 50,000 open questions; BENCH_OPEN=5000 BENCH_CYCLE_SECONDS=2 about 2.
step cycle 600 node "$BUILD/bench/cycle.js"

node "$BUILD/bench/summary.js" --failed "$(IFS=,; echo "${failed[*]-}")"
[ ${#failed[@]} -eq 0 ]
