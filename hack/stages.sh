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
#
# A stage written par:T1,T2,... runs the targets at once, each with its own kind cluster (the lanes of the end-to-end
# tier, see the Makefile's e2e-* targets): every line of T's output is printed as it comes, preceded by [T], and kept
# with the time of day in build/stages/T.log. The stage waits for all of them (a lane that fails does not stop the
# others halfway through a change of a cluster) and fails when one failed; each lane's time, and each molecule
# scenario's, is a row of the table.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
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

fail() {
  join_background
  table
  exit "$1"
}

# lane TARGET: make TARGET, its output prefixed and kept in build/stages/TARGET.log; its exit code in .rc.
lane() {
  local target=$1 line lane_log=build/stages/$1.log
  : > "$lane_log"
  { nice -n 0 make --no-print-directory "${made[@]}" "$target" 2>&1; echo "$?" > "$lane_log.rc"; } |
    while IFS= read -r line; do
      printf '[%s] %s\n' "$target" "$line"
      printf '%(%H:%M:%S)T %s\n' -1 "$line" >> "$lane_log"
    done
}

parallel() {  # targets...: each a lane, all at once; a row per lane and per molecule scenario of it
  local target rc=0 t pids=() code
  mkdir -p build/stages
  t=$(date +%s)
  echo "stage: $* at once (each line preceded by [target]; logs in build/stages/TARGET.log)"
  for target in "$@"; do rm -f "build/stages/$target.log.rc"; lane "$target" & pids+=($!); done
  wait "${pids[@]}"
  for target in "$@"; do
    code=$(cat "build/stages/$target.log.rc" 2>/dev/null || echo 1)
    while read -r scenario took; do
      rows+=("| molecule $scenario ($target) | ${took%s} | passed |")
    done < <(sed -n 's/^[0-9:]* molecule: scenario \([a-z_]*\) passed in \([0-9]*s\)$/\1 \2/p' "build/stages/$target.log")
    if [ "$code" = 0 ]; then
      rows+=("| make $target (lane) | $(( $(date -r "build/stages/$target.log.rc" +%s) - t )) | passed |")
    else
      rows+=("| make $target (lane) | $(( $(date -r "build/stages/$target.log.rc" +%s) - t )) | FAILED (exit $code) |")
      echo "stage: make $target FAILED (exit $code): build/stages/$target.log"
      rc=1
    fi
  done
  rows+=("| $* at once | $(( $(date +%s) - t )) | $([ $rc = 0 ] && echo passed || echo FAILED) |")
  return "$rc"
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
  if [[ $stage == par:* ]]; then
    IFS=, read -r -a targets <<< "${stage#par:}"
    parallel "${targets[@]}" || fail 1
    for target in "${targets[@]}"; do made+=(-o "$target"); done
    continue
  fi
  t=$(date +%s)
  if make --no-print-directory "${made[@]}" "$stage"; then
    rows+=("| make $stage | $(( $(date +%s) - t )) | passed |")
    echo "stage: make $stage passed in $(( $(date +%s) - t ))s"
    made+=(-o "$stage")
  else
    rc=$?
    rows+=("| make $stage | $(( $(date +%s) - t )) | FAILED (exit $rc) |")
    fail "$rc"
  fi
done
t=$(date +%s)
if ! join_background; then
  rows+=("| all | $(( $(date +%s) - total )) | FAILED (background) |")
  table
  exit 1
fi
[ "$(( $(date +%s) - t ))" -gt 0 ] && rows+=("| waiting for the background | $(( $(date +%s) - t )) | |")
rows+=("| all | $(( $(date +%s) - total )) | passed |")
table
