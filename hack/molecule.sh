#!/usr/bin/env bash
# molecule.sh SCENARIO...: `molecule test` of each scenario, stale state of an interrupted run reset first.
# Scenarios of one kind cluster run one after the other, in the order given; the scenarios of each other cluster (the
# CLUSTER_NAME their molecule.yml sets, e.g. main_scheduler_ha's kubesched-ha) run meanwhile in a lane of their own,
# as they share nothing with the others but the registry and the caches, which are locked or keyed by content. The
# first cluster's lane prints as it runs; each other lane writes build/stages/molecule-CLUSTER.log, printed when it has
# ended (a failed lane's last), so that the end of the output names the failure, each line after the time it was
# written (HH:MM:SS; hack/molecule-phases.py reads the last time of a line). Exits 1 when any scenario failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
molecule=${MOLECULE:-.venv/bin/molecule}
scenarios=${MOLECULE_SCENARIO_DIR:-molecule}  # where each scenario's molecule.yml is
out=${MOLECULE_LANE_DIR:-build/stages}        # the lanes' logs
[ "$#" -gt 0 ] || { echo "usage: $0 SCENARIO..." >&2; exit 2; }

cluster_of() {  # the CLUSTER_NAME a scenario's molecule.yml sets, or "kubesched"
  local name
  name=$(sed -n 's/^ *CLUSTER_NAME: *"\{0,1\}\([A-Za-z0-9-]*\)"\{0,1\} *$/\1/p' "$scenarios/$1/molecule.yml" | head -n 1)
  echo "${name:-kubesched}"
}

lane() {  # lane SCENARIO...: one after the other, stopping at the first failure
  local s t
  for s in "$@"; do
    t=$(date +%s)
    "$molecule" reset -s "$s" >/dev/null 2>&1
    if ! "$molecule" test -s "$s"; then
      echo "molecule: scenario $s FAILED after $(( $(date +%s) - t ))s" | tee -a "$summary"
      return 1
    fi
    echo "molecule: scenario $s passed in $(( $(date +%s) - t ))s" | tee -a "$summary"
  done
}

declare -A lanes=()
order=()
for s in "$@"; do
  [ -f "$scenarios/$s/molecule.yml" ] || { echo "ERROR: no scenario '$s' ($scenarios/$s/molecule.yml)" >&2; exit 2; }
  c=$(cluster_of "$s")
  [ -n "${lanes[$c]+x}" ] || order+=("$c")
  lanes[$c]="${lanes[$c]:-} $s"
done

mkdir -p "$out"
summary=$out/molecule-summary.txt
: > "$summary"
declare -A pids=()
for c in "${order[@]:1}"; do
  # Each line with the time it was written (hack/timestamps.py), as it is printed later.
  # shellcheck disable=SC2086  # the lane's scenarios, one word each
  ( lane ${lanes[$c]} 2>&1 | "$here/timestamps.py" > "$out/molecule-$c.log" ) &
  pids[$c]=$!
  echo "molecule: ${lanes[$c]# } on $c, beside the others (output in $out/molecule-$c.log, printed when it ends)"
done

rc=0
# shellcheck disable=SC2086
lane ${lanes[${order[0]}]} || rc=1

failed=()
for c in "${order[@]:1}"; do
  if wait "${pids[$c]}"; then
    echo "---- molecule on $c ($out/molecule-$c.log) ----"
    cat "$out/molecule-$c.log"
    echo "---- end of molecule on $c ----"
  else
    failed+=("$c")
  fi
done
for c in "${failed[@]}"; do
  echo "---- molecule on $c ($out/molecule-$c.log): FAILED ----"
  cat "$out/molecule-$c.log"
  echo "---- end of molecule on $c: FAILED ----"
  rc=1
done
echo "molecule: every lane has ended:"
{ grep -v ' FAILED ' "$summary"; grep ' FAILED ' "$summary"; } | sed 's/^molecule: /  /'  # a failure last
exit "$rc"
