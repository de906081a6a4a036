#!/usr/bin/env bash
# npm run demo: install dependencies (and Node 24) on a fresh checkout, build the page, start the server (page + API
# on one port). Environment: PORT, HOST, OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL, ASK_USER_STORE,
# ASK_USER_TTL_MS, ASK_USER_HOST (persistent | in-process), ASK_USER_LOCALE (zh | en) — see demo/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/ensure-deps.sh
export PATH="$PWD/node_modules/.bin:$PATH"
# Rebuild the page only when a source is newer than the build, so a restart is quick.
if [ ! -f demo/dist/index.html ] || [ -n "$(find demo/page widget demo/vite.config.ts -newer demo/dist/index.html -type f 2>/dev/null | head -1)" ]; then
  echo "demo: building the page (vite, demo/vite.config.ts)" >&2
  npx vite build -c demo/vite.config.ts >&2
fi
exec node --import tsx demo/server.ts
