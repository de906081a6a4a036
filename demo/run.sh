#!/usr/bin/env bash
# npm run demo: install dependencies (and Node 24) on a fresh checkout, build the page, start the server (page + API
# on one port). Environment: PORT, HOST, OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL, ASK_USER_STORE,
# ASK_USER_TTL_MS, ASK_USER_HOST (persistent | in-process), ASK_USER_LOCALE (zh | en), the §13 notification
# variables (ASK_USER_NOTIFY_AFTER_MS, ASK_USER_WEBHOOK_*, ASK_USER_ANSWER_LINKS, ASK_USER_PUBLIC_URL,
# ASK_USER_VAPID_*) — see demo/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/ensure-deps.sh
export PATH="$PWD/node_modules/.bin:$PATH"
# Rebuild the page only when a source is newer than the build, so a restart is quick.
if [ ! -f demo/dist/index.html ] || [ -n "$(find demo/page widget demo/vite.config.ts -newer demo/dist/index.html -type f 2>/dev/null | head -1)" ]; then
  echo "demo: building the page (vite, demo/vite.config.ts)" >&2
  npx vite build -c demo/vite.config.ts >&2
fi
# Answer links' page loads the widget's standalone bundle (the package's dist/widget): built when missing or older than the widget.
if [ "${ASK_USER_ANSWER_LINKS:-}" = "1" ]; then
  if [ ! -f dist/widget/ask-user-kit.standalone.js ] || [ -n "$(find widget -newer dist/widget/ask-user-kit.standalone.js -type f 2>/dev/null | head -1)" ]; then
    echo "demo: building the widget's standalone bundle (vite build)" >&2
    npx vite build >&2
  fi
fi
exec node --import tsx demo/server.ts
