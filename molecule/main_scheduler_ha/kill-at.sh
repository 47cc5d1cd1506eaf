#!/usr/bin/env bash
# kill-at.sh LOG PATTERN COMMAND...: runs COMMAND in a process group of its own, its output into LOG, and kills the
# whole group with SIGKILL as soon as a line of its output matches PATTERN (grep -E), as an operator's kill -9 or a
# lost controller would; exits 0 when it was killed there, 1 when the command ended before.
set -uo pipefail
log=$1 pattern=$2; shift 2
: > "$log"
setsid "$@" > "$log" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  if grep -qE -- "$pattern" "$log"; then
    kill -KILL -- "-$pid"
    wait "$pid" 2>/dev/null
    echo "killed at: $(grep -E -- "$pattern" "$log" | head -1)"
    exit 0
  fi
  sleep 0.2
done
wait "$pid"
echo "the command ended (exit $?) before its output matched $pattern"
exit 1
