#!/usr/bin/env bash
# make demo: on the kind cluster, build the shipped out-of-tree scheduler (cloned over file://),
# push its image to localhost:5001, deploy it as my-scheduler, then run the Kubernetes task's
# pod1/pod2/pod3 check and print the placement table.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(hack/example-repo.sh)
vars=(-e "kube_scheduler_source_repo=$repo" -e kube_scheduler_source_ref=main
      -e kube_scheduler_context=kind-kubesched -e "ansible_python_interpreter=$PWD/.venv/bin/python")
ansible-playbook playbooks/site.yml "${vars[@]}"
ansible-playbook playbooks/verify.yml "${vars[@]}"
