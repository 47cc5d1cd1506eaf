#!/usr/bin/env bash
# Runs every benchmark on the kind cluster in one go (make bench), or all of them at a small size (make
# bench-smoke, part of make test: the code stays alive, no figure is kept).
#   benchmarks/run.sh full    250 kwok nodes of 400 pods each; results in benchmarks/results/*.json and docs/benchmarks.md
#   benchmarks/run.sh smoke   20 kwok nodes, small sizes, one repetition; results in a temporary directory
#   benchmarks/run.sh full placement converge   only the benchmarks named (throughput placement converge
#                             build_image, or backlog: the backlog half of throughput alone); report.py still writes
#                             every section from the JSON results kept
# Steps: converge.py and build_image.py on the cluster as it is; then kwok's fake nodes (hack/kind/kwok.sh) and two
# second schedulers installed with the collection from the Kubernetes source at the default version (bench-scheduler
# with the default settings and bench-scheduler-tuned with kube_scheduler_tuning=throughput), for throughput.py and
# backlog.py (the benchmark "throughput") and placement_scale.py; report.py. Everything the run installed is removed at the end, pass or fail.
# CONVERGE_BASELINE=DIR: converge.py also times the collection of another commit, checked out in DIR with `make install`
# run there, alternated with this checkout's (converge.py --baseline).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: benchmarks/run.sh full|smoke [BENCHMARK...]}
shift
only=" $* "
want() { [ "$only" = "  " ] || [[ $only == *" $1 "* ]]; }
. benchmarks/lib.sh

case $mode in
  full) nodes=250 node_pods=400 tp=(--pods 3000 --repetitions 5) bl=(--pods 3000 --repetitions 5)
        pp=(--sizes 500,5000,50000 --repetitions 5 --loop-repetitions 1 --loop-max-size 5000 --timeout 3600)
        cv=(--repetitions 5) bi=(--cold-repetitions 1 --rerun-repetitions 5)
        export BENCH_RESULTS=$PWD/benchmarks/results ;;
  smoke) nodes=20 node_pods=110 tp=(--pods 60 --repetitions 1 --timeout 180) bl=(--pods 30 --repetitions 1 --timeout 180) pp=(--sizes 40 --repetitions 1 --loop-repetitions 1 --timeout 300)
         cv=(--repetitions 1) bi=()
         BENCH_RESULTS=$(mktemp -d); export BENCH_RESULTS ;;
  *) echo "usage: benchmarks/run.sh full|smoke" >&2; exit 2 ;;
esac
[ -z "${CONVERGE_BASELINE:-}" ] || cv+=(--baseline "$CONVERGE_BASELINE")

schedulers=(bench-scheduler bench-scheduler-tuned)
# pod_placement's pods are placed by the two second schedulers, half each: the cluster's own scheduler writes fewer
# Scheduled events than it binds pods under load (throughput.py counts them), and the module is judged on event evidence.
pp_schedulers=bench-scheduler,bench-scheduler-tuned
cleanup() {
  set +e
  for name in "${schedulers[@]}" bench-converge; do
    ansible-playbook playbooks/uninstall.yml -e "$(jq -c --arg n "$name" '. + {kube_scheduler_name: $n}' <<< "$source_vars")" >/dev/null
  done
  if [ -n "$kwok_up" ]; then hack/kind/kwok.sh down; fi
  # backlog.py parks the default scheduler's manifest outside the kubelet's directory while it runs; never leave it there.
  docker exec "${context#kind-}-control-plane" sh -c 'if [ -f /etc/kubernetes/kube-scheduler.yaml.backlog ]; then
    mv /etc/kubernetes/kube-scheduler.yaml.backlog /etc/kubernetes/manifests/kube-scheduler.yaml; fi'
  for ns in $(kubectl --context "$context" get ns -l app.kubernetes.io/part-of=kubesched-bench -o name); do
    kubectl --context "$context" delete "$ns" --wait=false >/dev/null
  done
}
kwok_up=
trap cleanup EXIT
start=$(date +%s)
stage() { echo "bench: $1 in $(( $(date +%s) - $2 ))s"; }

# converge and build_image need neither kwok's nodes nor the bench schedulers: they run first, on a cluster that only
# their own legs load (kwok's controller and 250 nodes' heartbeats, and two idle schedulers, would share the two cores
# with every leg they time).
(cd benchmarks
 if want converge; then t=$(date +%s); "$py" converge.py --context "$context" --vars "$source_vars" "${cv[@]}"; stage converge "$t"; fi
 if [ "$mode" = full ] && want build_image; then
   t=$(date +%s); "$py" build_image.py --repo "$(../hack/example-repo.sh)" "${bi[@]}"; stage build_image "$t"
 fi)

if want throughput || want backlog || want placement; then
  t=$(date +%s); kwok_up=1; hack/kind/kwok.sh up "$nodes" "$node_pods"; stage "kwok nodes" "$t"
  t=$(date +%s)
  ansible-playbook playbooks/site.yml -e "$(jq -c '. + {kube_scheduler_name: "bench-scheduler", kube_scheduler_image: "localhost:5001/bench-scheduler"}' <<< "$source_vars")" >/dev/null
  ansible-playbook playbooks/site.yml --tags deploy -e "$(jq -c '. + {kube_scheduler_name: "bench-scheduler-tuned", kube_scheduler_image: "localhost:5001/bench-scheduler", kube_scheduler_tuning: "throughput"}' <<< "$source_vars")" >/dev/null
  stage "bench schedulers installed" "$t"
fi

(cd benchmarks
 labels="cluster's default scheduler,second scheduler (default settings),second scheduler (tuning=throughput)"
 if want throughput; then t=$(date +%s); "$py" throughput.py --context "$context" --schedulers default-scheduler,bench-scheduler,bench-scheduler-tuned \
   --labels "$labels" "${tp[@]}"; stage throughput "$t"; fi
 # BENCHMARKS=throughput runs both throughput benchmarks; BENCHMARKS=backlog this one alone.
 if want throughput || want backlog; then t=$(date +%s); "$py" backlog.py --context "$context" \
   --schedulers default-scheduler,bench-scheduler,bench-scheduler-tuned --labels "$labels" "${bl[@]}"; stage backlog "$t"; fi
 # Last, as the longest: placement.json is written after each size, so a size that fails keeps the others.
 if want placement; then t=$(date +%s); "$py" placement_scale.py --context "$context" --schedulers "$pp_schedulers" "${pp[@]}"; stage placement "$t"; fi)

if [ "$mode" = full ]; then
  "$py" benchmarks/report.py --results "$BENCH_RESULTS" --out docs/benchmarks.md
else
  "$py" benchmarks/report.py --results "$BENCH_RESULTS" --out "$BENCH_RESULTS/benchmarks.md"
  grep -q "## Scheduling throughput" "$BENCH_RESULTS/benchmarks.md" && grep -q "## Throughput from a backlog" "$BENCH_RESULTS/benchmarks.md" && grep -q "## pod_placement at scale" "$BENCH_RESULTS/benchmarks.md" \
    && grep -q "## Converge" "$BENCH_RESULTS/benchmarks.md" || { echo "bench-smoke: the report lacks a section" >&2; exit 1; }
  rm -rf "$BENCH_RESULTS"
fi
stage "all benchmarks ($mode)" "$start"
