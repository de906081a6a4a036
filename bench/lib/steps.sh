# Sourced by bench/run.sh: `step NAME LIMIT COMMAND…` runs one benchmark bounded in time, and a signal to
# the script (Ctrl-C, kill, a closed terminal) ends the step under way with everything it started.
# Each step runs in a process group of its own (setsid), so one kill reaches the step's node process and
# every server, Redis and model process it spawned; `timeout` alone ends only its command.
# Sets `failed` (the names of steps that failed or ran out of time).
failed=()
current=0

stop() {
  local signal=$1
  trap - INT TERM HUP
  if [ "$current" != 0 ]; then
    kill -TERM -- "-$current" 2>/dev/null
    sleep 1
    kill -KILL -- "-$current" 2>/dev/null
  fi
  echo "bench: stopped by SIG$signal; the step under way and its processes were ended" >&2
  exit 130
}
trap 'stop INT' INT
trap 'stop TERM' TERM
trap 'stop HUP' HUP

step() {
  local name=$1 limit=$2
  shift 2
  echo
  echo "== $name"
  # In the background and waited for, so the traps above run at once when a signal comes.
  setsid timeout --kill-after=5 "$limit" "$@" &
  current=$!
  if ! wait "$current"; then
    echo "bench: $name failed or exceeded ${limit}s" >&2
    failed+=("$name")
  fi
  # What the step left behind in its group goes with it.
  kill -KILL -- "-$current" 2>/dev/null
  current=0
}
