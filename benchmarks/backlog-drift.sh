#!/usr/bin/env bash
# The tuned second scheduler's backlog throughput in consecutive runs on one cluster, with etcd's revision and size
# before each: a diagnostic of the backlog benchmark's spread (its tuned figures fall from run to run, while the
# default scheduler's and the untuned one's stay at their client rate limit). backlog.py, one repetition a run, of
# bench-scheduler-tuned alone (kube_scheduler_tuning: throughput) on 250 kwok nodes; results in a temporary
# directory, nothing kept but what it prints.
#   benchmarks/backlog-drift.sh                      6 runs; from run DEFRAG_FROM (default 4) on, etcd is compacted
#                                                    to its current revision and defragmented before the run
#   RUNS="1 2 3" DEFRAG_FROM=1 benchmarks/backlog-drift.sh   3 runs, each after a compaction and defragmentation
# Installs bench-scheduler-tuned (its image from an earlier `make bench`) and the kwok nodes, removes both at the end.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. benchmarks/lib.sh
# Run directly, not by make: the collection make install put into build/collections, and its dependencies.
ANSIBLE_COLLECTIONS_PATH=$PWD/build/collections:$(ls -d "$PWD"/.venv/lib/python3.*/site-packages)
export ANSIBLE_COLLECTIONS_PATH
node=${context#kind-}-control-plane
vars=$(jq -c '. + {kube_scheduler_name: "bench-scheduler-tuned", kube_scheduler_image: "localhost:5001/bench-scheduler",
  kube_scheduler_tuning: "throughput"}' <<< "$source_vars")
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
cleanup() {
  ansible-playbook playbooks/uninstall.yml -e "$vars" >/dev/null
  hack/kind/kwok.sh down
}
trap cleanup EXIT
hack/kind/kwok.sh up 250 400
ansible-playbook playbooks/site.yml --tags deploy -e "$vars" >/dev/null || exit 1
BENCH_RESULTS=$(mktemp -d)
export BENCH_RESULTS
for i in ${RUNS:-1 2 3 4 5 6}; do
  if [ "$i" -ge "${DEFRAG_FROM:-4}" ]; then defrag; fi
  echo "run $i: etcd $(status), $(date +%T)"
  (cd benchmarks && "$py" backlog.py --context "$context" --schedulers bench-scheduler-tuned --pods 3000 --repetitions 1) | grep 'backlog: rep'
done
echo "after: etcd $(status)"
rm -rf "$BENCH_RESULTS"
