#!/usr/bin/env bash
# The tuned second scheduler's backlog throughput in consecutive runs on one cluster, with etcd's revision and size
# before each: a diagnostic of the backlog benchmark's spread (its tuned figures fall from run to run, while the
# default scheduler's and the untuned one's stay at their client rate limit). backlog.py, one repetition a run, of
# bench-scheduler-tuned alone (kube_scheduler_tuning: throughput) on 250 kwok nodes; results in a temporary
# directory, nothing kept but what it prints.
#   benchmarks/backlog-drift.sh                      6 runs; from run DEFRAG_FROM (default 4) on, etcd is compacted
#                                                    to its current revision and defragmented before the run
#   RUNS="1 2 3" DEFRAG_FROM=1 benchmarks/backlog-drift.sh   3 runs, each after a compaction and defragmentation
#   RESTART_FROM=2 benchmarks/backlog-drift.sh       from run 2 on, kube-apiserver is restarted before the run (its
#                                                    static Pod's manifest moved out and back, then /readyz waited for)
#   KWOK_RESTART_FROM=3 benchmarks/backlog-drift.sh  from run 3 on, kwok's controller is restarted before the run (its
#                                                    pods' IP pools, kept in its memory, start empty again)
#   POD_STAGES_OFF_FROM=3 benchmarks/backlog-drift.sh  from run 3 on, kwok's pod stages (pod-ready, pod-complete,
#                                                    pod-delete) are deleted: bound pods get no status updates, so
#                                                    the API server serves the binds without kwok's Ready patches
#   EXTRA_VARS='{"kube_scheduler_client_qps": 200}' benchmarks/backlog-drift.sh   the tuned scheduler installed with
#                                                    these variables too (JSON) over the preset
#   METRICS_DIR=DIR benchmarks/backlog-drift.sh     each run's /metrics kept in DIR: the tuned scheduler's new process
#                                                    after the run (run-N-<scheduler>.txt), kube-apiserver's and etcd's
#                                                    before and after it (run-N-{before,after}-{apiserver,etcd}.txt);
#                                                    benchmarks/drift-metrics.py DIR compares the runs
# Each run also prints the host's CPU time during it (user, system, idle, steal: /proc/stat), so that a slower run
# on a busier host shows as one, and how many requests API Priority and Fairness refused with 429 during it (the
# client retries them after the Retry-After the API server sends).
# Installs bench-scheduler-tuned (site.yml: its image built when the registry lacks it) and the kwok nodes, removes
# both at the end.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. benchmarks/lib.sh
# Run directly, not by make: the collection make install put into build/collections, and its dependencies.
ANSIBLE_COLLECTIONS_PATH=$PWD/build/collections:$(ls -d "$PWD"/.venv/lib/python3.*/site-packages)
export ANSIBLE_COLLECTIONS_PATH
node=${context#kind-}-control-plane
vars=$(jq -c --argjson extra "${EXTRA_VARS:-{\}}" '. + {kube_scheduler_name: "bench-scheduler-tuned", kube_scheduler_image: "localhost:5001/bench-scheduler",
  kube_scheduler_tuning: "throughput"} + $extra' <<< "$source_vars")
etcd() {  # etcd PATH BODY: a POST to etcd's gRPC gateway on the control-plane node
  docker exec "$node" curl -s --cacert /etc/kubernetes/pki/etcd/ca.crt --cert /etc/kubernetes/pki/etcd/server.crt \
    --key /etc/kubernetes/pki/etcd/server.key -X POST "https://127.0.0.1:2379/v3/$1" -d "$2"
}
status() { etcd maintenance/status '{}' | jq -c '{revision: .header.revision, dbSize, dbSizeInUse}'; }
defrag() {
  local rev
  rev=$(etcd maintenance/status '{}' | jq -r .header.revision)
  etcd kv/compaction "{\"revision\": \"$rev\", \"physical\": true}" >/dev/null
  etcd maintenance/defragment '{}' >/dev/null
  echo "compacted to $rev and defragmented: $(status)"
}
restart_apiserver() {
  local manifest=/etc/kubernetes/manifests/kube-apiserver.yaml aside=/etc/kubernetes/kube-apiserver.yaml.drift
  docker exec "$node" sh -c "mv $manifest $aside && while crictl ps -q --name '^kube-apiserver\$' | grep -q .; do sleep 1; done && mv $aside $manifest"
  for _ in $(seq 120); do kubectl --context "$context" get --raw /readyz >/dev/null 2>&1 && break; sleep 1; done
  sleep 20  # the controllers and the kwok nodes re-list and settle
  echo "kube-apiserver restarted: $(docker exec "$node" crictl ps --name '^kube-apiserver$' -o json | jq -r '.containers[0].createdAt')"
}
restart_kwok() {
  kubectl --context "$context" -n kube-system rollout restart deployment/kwok-controller >/dev/null
  kubectl --context "$context" -n kube-system rollout status deployment/kwok-controller --timeout=180s >/dev/null
  sleep 20  # the new controller takes the fake Nodes over again
  echo "kwok-controller restarted: $(kubectl --context "$context" -n kube-system get pods -l app=kwok-controller -o jsonpath='{.items[*].metadata.name}')"
}
pod_stages_off() {
  kubectl --context "$context" delete stages.kwok.x-k8s.io pod-ready pod-complete pod-delete --ignore-not-found >/dev/null
  echo "kwok's pod stages deleted (pod-ready, pod-complete, pod-delete); the stages left: $(kubectl --context "$context" get stages.kwok.x-k8s.io -o name | tr '\n' ' ')"
}
rejected() {  # requests API Priority and Fairness refused (429) since kube-apiserver started, every priority level
  kubectl --context "$context" get --raw /metrics | awk '/^apiserver_flowcontrol_rejected_requests_total/ {s += $2} END {print s + 0}'
}
cpu() { awk '/^cpu /{print $2+$3, $4, $5, $9}' /proc/stat; }  # user(+nice) system idle steal, in ticks
cpu_share() {  # cpu_share "BEFORE" "AFTER": the shares of user, system, idle, steal between two readings
  python3 -c 'import sys; a=list(map(int,sys.argv[1].split())); b=list(map(int,sys.argv[2].split())); d=[y-x for x,y in zip(a,b)]; t=sum(d) or 1
print("cpu: " + ", ".join(f"{n} {100*v/t:.0f}%" for n, v in zip(("user","system","idle","steal"), d)))' "$1" "$2"
}
snap() {  # snap NAME: kube-apiserver's and etcd's /metrics into METRICS_DIR (nothing without METRICS_DIR)
  [ -n "${METRICS_DIR:-}" ] || return 0
  kubectl --context "$context" get --raw /metrics > "$METRICS_DIR/$1-apiserver.txt"
  docker exec "$node" curl -s http://127.0.0.1:2381/metrics > "$METRICS_DIR/$1-etcd.txt"
}
cleanup() {
  ansible-playbook playbooks/uninstall.yml -e "$vars" >/dev/null
  hack/kind/kwok.sh down
}
trap cleanup EXIT
if [ -n "${METRICS_DIR:-}" ]; then mkdir -p "$METRICS_DIR"; fi
hack/kind/kwok.sh up 250 400
ansible-playbook playbooks/site.yml -e "$vars" >/dev/null || exit 1
BENCH_RESULTS=$(mktemp -d)
export BENCH_RESULTS
for i in ${RUNS:-1 2 3 4 5 6}; do
  if [ "$i" -ge "${DEFRAG_FROM:-4}" ]; then defrag; fi
  if [ "$i" -ge "${RESTART_FROM:-1000}" ]; then restart_apiserver; fi
  if [ "$i" -ge "${KWOK_RESTART_FROM:-1000}" ]; then restart_kwok; fi
  if [ "$i" -eq "${POD_STAGES_OFF_FROM:-1000}" ]; then pod_stages_off; fi
  echo "run $i: etcd $(status), $(date +%T)"
  snap "run-$i-before"
  before=$(cpu) refused=$(rejected)
  (cd benchmarks && "$py" backlog.py --context "$context" --schedulers bench-scheduler-tuned --pods 3000 --repetitions 1 \
    ${METRICS_DIR:+--keep-metrics "$METRICS_DIR/run-$i-"}) | grep 'backlog: rep'
  cpu_share "$before" "$(cpu)"
  echo "requests refused by API Priority and Fairness (429) during the run: $(($(rejected) - refused))"
  snap "run-$i-after"
done
echo "after: etcd $(status)"
rm -rf "$BENCH_RESULTS"
