#!/usr/bin/env bash
# npm test: typecheck, lint, format check, node tests, browser tests, end-to-end. Each runner's output is kept; the last line
# is the sum over all of them as `N passed, N failed`, which CI reads.
set -uo pipefail
cd "$(dirname "$0")/.."
bash tests/ensure-deps.sh || exit 1
bash tests/ensure-tools.sh || exit 1
# Node 24 from node_modules/.bin first, also when this script is run without npm.
export PATH="$PWD/node_modules/.bin:$PATH"
passed=0; failed=0; status=0
logdir=$(mktemp -d)
step() { # name, command...
  local name=$1; shift
  echo "== $name"
  "$@" 2>&1 | tee "$logdir/$name.log"
  local rc=${PIPESTATUS[0]}
  local p f
  case "$name" in
    typecheck|lint|format) if [ "$rc" = 0 ]; then p=1; f=0; else p=0; f=1; fi ;;
    browser) p=$(grep -Eo '^[0-9]+ passed, [0-9]+ failed' "$logdir/$name.log" | tail -1 | cut -d' ' -f1); f=$(grep -Eo '^[0-9]+ passed, [0-9]+ failed' "$logdir/$name.log" | tail -1 | cut -d' ' -f3) ;;
    *) p=$(grep -Eo '^ℹ pass [0-9]+' "$logdir/$name.log" | tail -1 | grep -Eo '[0-9]+$'); f=$(grep -Eo '^ℹ fail [0-9]+' "$logdir/$name.log" | tail -1 | grep -Eo '[0-9]+$') ;;
  esac
  p=${p:-0}; f=${f:-0}
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; echo "== $name exited $rc" ; fi
  echo "== $name: $p passed, $f failed"
  passed=$((passed + p)); failed=$((failed + f))
  [ "$rc" = 0 ] || status=1
}
step typecheck npm run --silent typecheck
step lint npm run --silent lint
step format npm run --silent format:check
step node bash tests/run-node.sh
[ -d tests/widget ] && step browser npm run --silent test:browser
[ -d tests/e2e ] && [ -n "$(find tests/e2e -name '*.test.ts' 2>/dev/null)" ] && step e2e bash tests/run-e2e.sh
echo "$passed passed, $failed failed"
exit $status
