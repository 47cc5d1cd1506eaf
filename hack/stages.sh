#!/usr/bin/env bash
# stages.sh STAGE...: `make TARGET` for each stage in turn, stopping at the first that fails; prints each stage's
# time as it ends and, at the end (or at the failure), a table of them all. A stage that ran is not made again as
# another stage's prerequisite (make -o): `cluster` once, however many stages need it.
#
# A stage written bg:T1,T2,... runs the targets T1, T2, ... one after the other in the background, at the lowest CPU
# priority (nice 19), while the next stages run: the check tier (lint, sanity, units, docs) is CPU work that fits into
# the cycles the end-to-end stages leave idle while they wait for the cluster, without taking the CPU from them. Its
# output goes to build/stages/background.log, printed when it ends; the run fails as soon as it fails, and waits for
# it at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
rows=()
table() {
  printf '\nstage times:\n| stage | seconds | result |\n| --- | ---: | --- |\n'
  printf '%s\n' "${rows[@]}"
}
total=$(date +%s)
made=()
log=build/stages/background.log
status=build/stages/background.status
bg_pid=

background() {  # targets...: run in turn; each one's row into $status.rows, the exit code into $status
  local target t rc
  for target in "$@"; do
    t=$(date +%s)
    if nice -n 19 make --no-print-directory "${made[@]}" "$target"; then
      echo "| make $target (background) | $(( $(date +%s) - t )) | passed |" >> "$status.rows"
    else
      rc=$?
      echo "| make $target (background) | $(( $(date +%s) - t )) | FAILED (exit $rc) |" >> "$status.rows"
      echo "$rc" > "$status"
      return "$rc"
    fi
  done
  echo 0 > "$status"
}

# The background's result once it has ended: its log and rows are shown, and its exit code returned.
join_background() {
  [ -n "$bg_pid" ] || return 0
  wait "$bg_pid"
  bg_pid=
  echo "---- background stages (build/stages/background.log) ----"
  cat "$log"
  echo "---- end of the background stages ----"
  mapfile -t -O "${#rows[@]}" rows < "$status.rows"
  return "$(cat "$status")"
}

# A failed background stops the run at the next stage boundary.
background_failed() {
  [ -n "$bg_pid" ] && [ -s "$status" ] && [ "$(cat "$status")" != 0 ]
}

# What a failed stage's log says where it failed: its error lines with a little context, each cut to 1500 characters,
# printed after the table, so that the end of the run's output (all a CI summary may keep) names the failure.
failure_lines() {  # failure_lines LOG
  [ -s "$1" ] || return 0
  echo "---- where it failed ($1: its error lines) ----"
  grep -n -B3 -A2 -E 'fatal: \[|FAILED! =>|failed=[1-9]|^ERROR|CRITICAL|Error( [0-9]+)?:|^make(\[[0-9]+\])?: \*\*\*' "$1" \
    | grep -v 'FAILED - RETRYING' | tail -n 60 | cut -c1-1500
  # The scenarios' expected failures are printed as text inside messages too; a task's own failure starts its line,
  # and one that was ignored is followed by "...ignoring" (left out).
  echo "---- the last tasks that failed ($1) ----"
  awk 'function flush() { if (held != "") print held; held = "" }
       /^\.\.\.ignoring/ {held = ""; next}
       /^TASK \[/ {flush(); task = $0}
       /^(fatal: \[|\[ERROR\]: Task failed)/ {flush(); held = task "\n" substr($0, 1, 1500)}
       END {flush()}' "$1" | tail -n 4
  echo "---- end of the error lines ----"
}

fail() {  # fail CODE [LOG]
  join_background
  table
  failure_lines "${2:-}"
  [ -s "$status" ] && [ "$(cat "$status")" != 0 ] && failure_lines "$log"
  exit "$1"
}

for stage in "$@"; do
  if background_failed; then
    echo "stage: the background stages failed"
    fail 1
  fi
  if [[ $stage == bg:* ]]; then
    mkdir -p build/stages && rm -f "$log" "$status" "$status.rows" && touch "$status.rows"
    IFS=, read -r -a targets <<< "${stage#bg:}"
    background "${targets[@]}" > "$log" 2>&1 &
    bg_pid=$!
    echo "stage: ${targets[*]} started in the background (nice 19, output in $log)"
    for target in "${targets[@]}"; do made+=(-o "$target"); done
    continue
  fi
  t=$(date +%s)
  # Each stage's output is kept in build/stages/STAGE.log as well, for the error lines at a failure.
  mkdir -p build/stages
  make --no-print-directory "${made[@]}" "$stage" 2>&1 | tee "build/stages/$stage.log"
  rc=${PIPESTATUS[0]}
  if [ "$rc" = 0 ]; then
    rows+=("| make $stage | $(( $(date +%s) - t )) | passed |")
    echo "stage: make $stage passed in $(( $(date +%s) - t ))s"
    made+=(-o "$stage")
  else
    rows+=("| make $stage | $(( $(date +%s) - t )) | FAILED (exit $rc) |")
    fail "$rc" "build/stages/$stage.log"
  fi
done
t=$(date +%s)
if ! join_background; then
  rows+=("| all | $(( $(date +%s) - total )) | FAILED (background) |")
  fail 1
fi
[ "$(( $(date +%s) - t ))" -gt 0 ] && rows+=("| waiting for the background | $(( $(date +%s) - t )) | |")
rows+=("| all | $(( $(date +%s) - total )) | passed |")
table
