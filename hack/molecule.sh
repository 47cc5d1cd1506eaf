#!/usr/bin/env bash
# molecule.sh SCENARIO...: `molecule test` of each scenario in the order given, the state an interrupted run left reset
# first; stops at the first that fails. Prints "molecule: scenario S passed in Ns" as each one ends.
#
# A scenario of MOLECULE_HA (default main_scheduler_ha) runs on a cluster of its own, kubesched-ha; while a scenario runs
# alone, the cluster it does not use is paused (an idle control plane takes CPU). With MOLECULE_LANES=2 (default 1)
# and scenarios after it in the list, it starts in its turn and runs beside them, its output (each line timed by
# hack/timestamps.py) in build/stages/molecule-S.log, printed whole once it has ended: for a machine with cores to
# spare (on 2 cores both lanes are CPU-bound, and the run was no faster). A failure in either lane stops both (the
# other lane's at the next scenario's start); both clusters are thawed at the end, a failed run's too.
#   MOLECULE     the molecule command (default .venv/bin/molecule)
#   HA_ENV       the environment that names kubesched-ha to cluster.sh (the Makefile's HA)
#   CLUSTER_SH   hack/kind/cluster.sh unless given; MOLECULE_LOG_DIR  where the lane's log goes (build/stages)
set -uo pipefail
cd "$(dirname "$0")/.." || exit
MOLECULE=${MOLECULE:-.venv/bin/molecule}
read -r -a on_ha <<< "${MOLECULE_HA:-main_scheduler_ha}"
LANES=${MOLECULE_LANES:-1}
CLUSTER_SH=${CLUSTER_SH:-hack/kind/cluster.sh}
LOG_DIR=${MOLECULE_LOG_DIR:-build/stages}
# shellcheck disable=SC2086 # HA_ENV is NAME=VALUE words
ha() { env ${HA_ENV:-} "$CLUSTER_SH" "$@"; }
kubesched() { "$CLUSTER_SH" "$@"; }

lane_pid='' lane_name='' lane_log='' lane_start=''
# The other lane, once it has ended: its log printed, its exit code returned.
join_lane() {
  [ -n "$lane_pid" ] || return 0
  wait "$lane_pid"
  local rc=$?
  lane_pid=
  echo "---- molecule: scenario $lane_name, run beside the others ($lane_log) ----"
  cat "$lane_log"
  echo "---- end of scenario $lane_name ----"
  if [ "$rc" = 0 ]; then
    echo "molecule: scenario $lane_name passed in $(( $(date +%s) - lane_start ))s (beside the others)"
  else
    echo "molecule: scenario $lane_name FAILED (exit $rc) after $(( $(date +%s) - lane_start ))s"
  fi
  return "$rc"
}
stop_lane() {
  [ -n "$lane_pid" ] || return 0
  kill -TERM -- "-$lane_pid" 2>/dev/null
  join_lane
}
finish() {  # finish CODE
  [ "$1" = 0 ] || stop_lane
  ha thaw; kubesched thaw
  exit "$1"
}
lane_failed() { [ -n "$lane_pid" ] && ! kill -0 "$lane_pid" 2>/dev/null && ! join_lane; }

run() {  # run SCENARIO: reset, then test
  "$MOLECULE" reset -s "$1" >/dev/null 2>&1
  "$MOLECULE" test -s "$1"
}

scenarios=("$@")
for i in "${!scenarios[@]}"; do
  s=${scenarios[$i]}
  if lane_failed; then finish 1; fi
  t=$(date +%s)
  is_ha=0
  for h in "${on_ha[@]}"; do [ "$h" = "$s" ] && is_ha=1; done
  if [ "$is_ha" = 1 ] && [ "$LANES" = 2 ] && [ -z "$lane_pid" ] && [ $((i + 1)) -lt ${#scenarios[@]} ]; then
    mkdir -p "$LOG_DIR"
    lane_name=$s lane_log=$LOG_DIR/molecule-$s.log lane_start=$t
    # A process group of its own, so that a failure of the other lane stops all of it.
    setsid bash -c "$(declare -f run); set -o pipefail; MOLECULE='$MOLECULE' run '$s' 2>&1 | hack/timestamps.py" > "$lane_log" &
    lane_pid=$!
    echo "molecule: scenario $s started beside the others (output in $lane_log, printed when it ends)"
    continue
  fi
  if [ -z "$lane_pid" ]; then
    # One lane: the cluster this scenario does not use is paused.
    if [ "$is_ha" = 1 ]; then kubesched pause; else ha pause; fi
  fi
  if ! run "$s"; then finish 1; fi
  echo "molecule: scenario $s passed in $(( $(date +%s) - t ))s"
done
if [ -n "$lane_pid" ]; then
  kubesched pause
  join_lane || finish 1
fi
finish 0
