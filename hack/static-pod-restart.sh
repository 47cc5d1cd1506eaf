#!/usr/bin/env bash
# How long the kubelet takes to run a changed static Pod manifest, two ways, alternated (the measurement behind
# roles/main_scheduler/tasks/swap.yml):
#   replace  the new manifest renamed over the old one (mv), as kubeadm and the role before 2026-12-02 did;
#   aside    the old manifest moved out first, the new one renamed in once the old pod's directory
#            <kubelet dir>/pods/<UID> is gone plus 2 s (the kubelet's housekeeping period), as the role does now.
# Each run changes an annotation of the node's kube-scheduler manifest (a new config hash, so a new pod) and prints
# the seconds from the first move to the new container running (crictl). The original manifest is put back at the
# end, byte for byte, and its pod waited for.
#   hack/static-pod-restart.sh [NODE] [RUNS]      default kubesched-control-plane, 3 runs of each way
set -euo pipefail
node=${1:-kubesched-control-plane}
runs=${2:-3}
docker exec -i "$node" bash -s "$runs" <<'NODE'
set -euo pipefail
runs=$1
manifest=/etc/kubernetes/manifests/kube-scheduler.yaml
work=$(mktemp -d /etc/kubernetes/static-pod-restart.XXXXXX)
cp -p "$manifest" "$work/original.yaml"
running() { crictl ps -q --name '^kube-scheduler$' --state running; }
uid() { crictl pods --name '^kube-scheduler-' --namespace kube-system --state ready -o json |
  python3 -c 'import json, sys; items = json.load(sys.stdin)["items"]; print(items[0]["metadata"]["uid"] if items else "")'; }
now() { date +%s.%N; }
wait_running() { local old=$1 n; while :; do n=$(running); [ -n "$n" ] && [ "$n" != "$old" ] && return; sleep 0.2; done; }
settle() { until [ -n "$(running)" ] && [ -n "$(uid)" ]; do sleep 0.5; done; sleep 5; }
variant() {  # variant VALUE: the original with one annotation more
  python3 - "$work/original.yaml" "$work/next.yaml" "$1" <<'PY'
import sys
src, dst, value = sys.argv[1:]
text = open(src).read()
assert "\n  annotations:\n" in text or "\nmetadata:\n" in text
if "\n  annotations:\n" in text:
    text = text.replace("\n  annotations:\n", f'\n  annotations:\n    kubesched.io/restart-probe: "{value}"\n', 1)
else:
    text = text.replace("\nmetadata:\n", f'\nmetadata:\n  annotations:\n    kubesched.io/restart-probe: "{value}"\n', 1)
open(dst, "w").write(text)
PY
}
restore() { cp -p "$work/original.yaml" "$work/restore.yaml" && mv -f "$work/restore.yaml" "$manifest"; }
trap restore EXIT
settle
for i in $(seq "$runs"); do
  for way in replace aside; do
    variant "$way-$i-$$"
    old=$(running); dir=/var/lib/kubelet/pods/$(uid)
    t0=$(now)
    if [ "$way" = aside ]; then
      mv -f "$manifest" "$work/aside.yaml"
      while [ -d "$dir" ]; do sleep 0.2; done
      sleep 2
    fi
    mv -f "$work/next.yaml" "$manifest"
    wait_running "$old"
    python3 -c "import sys; print(f'static-pod-restart: run {sys.argv[1]} {sys.argv[2]:7s} new container running {float(sys.argv[4]) - float(sys.argv[3]):.1f} s after the change')" "$i" "$way" "$t0" "$(now)"
    settle
  done
done
old=$(running)
restore
trap - EXIT
wait_running "$old"
settle
rm -rf "$work"
echo "static-pod-restart: original manifest back, its pod running"
NODE
