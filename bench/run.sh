#!/usr/bin/env bash
# `npm run bench`: every benchmark in turn, then one summary table (bench/summary.ts). Benchmarks are not
# tests: nothing here fails on a slow figure. Each step is bounded in time; a step that fails or times out
# is reported in the summary and makes the script exit non-zero after the table is printed.
# `npm run bench -- --quick`: the same figures on shorter loads and fewer open questions (about 5 minutes).
# Ctrl-C or a kill stops the step under way with everything it started (servers, Redis, PostgreSQL, model
# processes).
set -uo pipefail
cd "$(dirname "$0")/.."
bash tests/ensure-deps.sh || exit 1
export PATH="$PWD/node_modules/.bin:$PATH"

quick=0
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    *) echo "bench: unknown argument $a (only --quick)" >&2; exit 2 ;;
  esac
done
if [ "$quick" = 1 ]; then
  export BENCH_OPEN="${BENCH_OPEN:-5000}" BENCH_CYCLE_SECONDS="${BENCH_CYCLE_SECONDS:-1}" BENCH_SEED_SECONDS="${BENCH_SEED_SECONDS:-60}"
  ROUTE_ARGS=(--seconds 1 --rounds 1 --warmup 0.5)
  SCALE_ARGS=(--sizes 1000,20000 --lookups 10000)
  FOLLOW_ARGS=(--quick)
  APPROVAL_ARGS=(--quick)
  NOTIFY_ARGS=(--quick)
else
  ROUTE_ARGS=()
  SCALE_ARGS=()
  FOLLOW_ARGS=()
  APPROVAL_ARGS=()
  NOTIFY_ARGS=()
fi

# Steps in process groups of their own, ended with everything they started on a signal (bench/lib/steps.sh).
source bench/lib/steps.sh

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
# Node must read the emitted .js files as ES modules, and the demo's imports of the package's own entries
# (`ask-user-kit/plugin`, …) resolve to the emitted files: a package.json named ask-user-kit whose exports
# are tsconfig.json's paths with .ts turned into .js (Node resolves a package's imports of its own name),
# each as `{ default }` like the real package's, and `./package.json` itself (the demo reads the manifest to
# find the widget's folder).
node -e '
  const { paths } = JSON.parse(require("fs").readFileSync("tsconfig.json", "utf8")).compilerOptions;
  const exports = Object.fromEntries(Object.entries(paths).map(([entry, [source]]) => [
    "." + entry.slice("ask-user-kit".length), { default: source.replace(/\.ts$/, ".js") },
  ]));
  exports["./package.json"] = "./package.json";
  require("fs").writeFileSync(process.argv[1], JSON.stringify({ name: "ask-user-kit", type: "module", exports }, null, 2));
' "$BUILD/package.json"

step interception 60 node "$BUILD/bench/interception.js"
step http-routes 300 node "$BUILD/bench/http-routes.js" "${ROUTE_ARGS[@]}"
step pending-scale 90 node "$BUILD/bench/pending-scale.js" "${SCALE_ARGS[@]}"
step bundle 60 node "$BUILD/bench/bundle.js"
# Builds the Markdown chunk with vite and times it in Chromium, so it runs from the sources like bundle-size.ts.
step markdown 120 node --import tsx bench/markdown-render.ts
# With PostgreSQL and Redis Cluster (contract §14) beside memory, SQLite and Redis: its cost and scale parts
# took 7½-10 minutes at the default 50,000 open questions at load average 2-15 (seeding 4 × 50,000 paused
# runs at once is 3-5 of them); --quick (BENCH_OPEN=5000, 1 s slices) about 3.
step cycle 1200 node "$BUILD/bench/cycle.js"
# The event log's cost (contract §11): about 3 minutes; --quick (1 s slices, 50 followed runs, a 16 s idle
# window) about 1½.
step follow 420 node "$BUILD/bench/follow.js" "${FOLLOW_ARGS[@]}"
# What an approval card costs beside a question (contract §12): store round trips per card on every backend,
# approvals/s vs questions/s on memory. About 45 s; --quick (1 s slices, one round of them) about 15.
step approval 120 node "$BUILD/bench/approval.js" "${APPROVAL_ARGS[@]}"
# Notifications (contract §13): store calls of cards answered before notifyAfterMs and the timers they hold,
# then 10,000 cards due at once delivered to a webhook receiver on loopback (memory, SQLite, Redis), and
# where a delivery's time goes. About 2 minutes; --quick (2,000 cards) about 1.
step notify 300 node "$BUILD/bench/notify.js" "${NOTIFY_ARGS[@]}"

node "$BUILD/bench/summary.js" --failed "$(IFS=,; echo "${failed[*]-}")"
[ ${#failed[@]} -eq 0 ]
