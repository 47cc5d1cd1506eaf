#!/usr/bin/env bash
# Times playbooks/site.yml --tags build,image twice on the kind platform: a first run from nothing
# (a new working directory, an empty Go build cache, a new image tag: clone, full compile, image
# build, push) and a second run with nothing changed (expected changed=0). Prints a markdown row.
# usage: benchmarks/build_image.sh   (needs `make deps cluster`; takes several minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PWD/.venv/bin:$PATH
export ANSIBLE_COLLECTIONS_PATH=$PWD/build/collections:$PWD/.venv/lib/python3.11/site-packages
run=$(date +%s)
work=$(mktemp -d /var/tmp/kubesched-bench.XXXXXX)
repo=$(hack/example-repo.sh)
vars=(-e "kube_scheduler_source_repo=$repo" -e kube_scheduler_source_ref=main
      -e "kube_scheduler_work_dir=$work" -e "kube_scheduler_image_tag=bench-$run"
      -e "{\"kube_scheduler_build_env\": {\"GOCACHE\": \"$work/gocache\"}}"
      -e "ansible_python_interpreter=$PWD/.venv/bin/python")
timed() {  # timed LABEL: runs the playbook, prints seconds and the recap's changed count
  local start out
  start=$(date +%s.%N)
  out=$(ansible-playbook playbooks/site.yml --tags build,image "${vars[@]}")
  printf '%s %.1f %s\n' "$1" "$(echo "$(date +%s.%N) - $start" | bc)" "$(grep -oE 'changed=[0-9]+' <<< "$out" | tail -1)"
}
first=$(timed first); second=$(timed second)
read -r _ t1 c1 <<< "$first"; read -r _ t2 c2 <<< "$second"
echo "| $(date -u +%F) | $t1 s ($c1) | $t2 s ($c2) | $(echo "scale=1; 100 * $t2 / $t1" | bc) % |"
rm -rf "$work"
